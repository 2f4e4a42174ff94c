"""Worker faults during a `worker_inference` rollout: the worker is restarted, the episodes
its envs had in flight are dropped and counted, and its envs' rows of that rollout are
collected again from fresh episodes; nothing is left running afterwards."""
import multiprocessing

import numpy as np
import pytest
import torch

from ding.envs import DingEnvWrapper
from ding.envs.env_manager.env_faults import EnvFaultError
from ding.envs.env_manager.worker_inference import WorkerInferenceSampler

from .mock_envs import CountingEnv, first_starts
from .test_fault_tolerance import FaultyEnv, is_gone

STEPS = 10


class ZeroActor:
    """Always action 0 (reward 1 in CountingEnv)."""

    def __call__(self, obs, warmup=False, **kwargs):
        return np.zeros(len(obs), dtype=np.int64)

    def load_state_dict(self, state_dict):
        pass


def faulty_sampler(fault, at, step_timeout=None, max_retry=3):
    healthy = lambda: DingEnvWrapper(CountingEnv(terminate_at=10**6, truncate_at=10**6))  # noqa: E731
    fns = [lambda: DingEnvWrapper(FaultyEnv(fault, at))] + [healthy] * 3
    m = WorkerInferenceSampler(fns, dict(worker_num=2, step_timeout=step_timeout, max_retry=max_retry))
    m.seed(0)
    m.bind_actor(ZeroActor, {'w': torch.zeros(1)})
    m.launch()
    return m


def env_rows(batch, env_id):
    return batch['obs'][batch['env_id'] == env_id]


# env 0 fails on its 25th or 30th step, inside the 3rd rollout of 10 steps; after its restart it
# counts from 0 again, so the rerun and the next rollout (its steps 1-20) pass
@pytest.mark.parametrize('fault,at,timeout', [('raise', 30, None), ('exit', 25, None), ('hang', 25, 0.2)])
def test_rollout_survives_a_fault_and_recollects_the_lost_rows(fault, at, timeout):
    m = faulty_sampler(fault, at, step_timeout=timeout)
    first_pids = m.worker_pids
    before = (at - 1) // STEPS  # rollouts that end before the fault
    for _ in range(before):
        m.collect_rollout(STEPS)
    batch, episodes = m.collect_rollout(STEPS)
    assert m.worker_restarts == 1 and m.dropped_episodes == 2 and episodes == 0
    start0 = first_starts(0, 1)[0]  # env 0 is reseeded with its seed (0) on restart
    assert env_rows(batch, 0).tolist() == [[t, start0] for t in range(STEPS)]  # a fresh episode, whole
    assert env_rows(batch, 1)[:, 0].tolist() == list(range(STEPS))
    assert env_rows(batch, 2)[:, 0].tolist() == list(range(before * STEPS, (before + 1) * STEPS))  # went on
    assert batch['reward'].tolist() == [1.0] * 4 * STEPS and not batch['done'].any()
    after, _ = m.collect_rollout(STEPS)  # the restarted worker goes on from where its rerun ended
    assert env_rows(after, 0)[:, 0].tolist() == list(range(STEPS, 2 * STEPS))
    last_pids = m.worker_pids
    assert is_gone(first_pids[0]) and last_pids[1] == first_pids[1]
    m.close()
    assert multiprocessing.active_children() == [] and all(is_gone(p) for p in first_pids + last_pids)


def test_failing_more_than_max_retry_in_a_row_raises():
    m = faulty_sampler('raise', 1, max_retry=2)  # fails on the first step after every restart
    with pytest.raises(EnvFaultError, match=r'env 0 failed 3 times in a row .*max_retry=2.*env broke on purpose'):
        m.collect_rollout(STEPS)
    m.close()
    assert multiprocessing.active_children() == []
