"""Worker faults: an env raising, a worker exiting, a step hanging. Each restarts the
worker (logged at WARNING), drops and counts the episodes in flight, and collection goes on;
nothing is left running afterwards, also when the main process is interrupted."""
import logging
import multiprocessing
import os
import subprocess
import sys
import time
from functools import partial

import gymnasium
import numpy as np
import pytest

from ding.envs import AlternatingSampler, DingEnvWrapper, SubprocessEnvManagerV2
from ding.envs.env_manager.env_faults import EnvFaultError

from .mock_envs import FAIL_AT, CountingEnv, first_starts, make_faulty_episodes


class FaultyEnv(gymnasium.Wrapper):
    """CountingEnv (no natural episode end) that fails on its `at`-th step since creation."""

    def __init__(self, fault: str, at: int) -> None:
        super().__init__(CountingEnv(terminate_at=10**6, truncate_at=10**6))
        self.fault, self.at, self.count = fault, at, 0

    def step(self, action):
        self.count += 1
        if self.count == self.at:
            if self.fault == 'raise':
                raise RuntimeError('env broke on purpose')
            if self.fault == 'exit':
                os._exit(3)
            time.sleep(60)  # 'hang'
        return self.env.step(action)


def faulty_manager(fault, at, step_timeout=None, max_retry=3):
    healthy = lambda: DingEnvWrapper(CountingEnv(terminate_at=10**6, truncate_at=10**6))  # noqa: E731
    fns = [lambda: DingEnvWrapper(FaultyEnv(fault, at))] + [healthy] * 3
    m = SubprocessEnvManagerV2(fns, dict(worker_num=2, step_timeout=step_timeout, max_retry=max_retry))
    m.seed(0)
    m.launch()
    return m


def is_gone(pid):
    """No such process, not even a zombie (an exited child nobody reaped)."""
    return not os.path.exists(f'/proc/{pid}')


@pytest.mark.parametrize('fault,at,timeout', [('raise', 50, None), ('exit', 5, None), ('hang', 5, 1.0)])
def test_fault_is_survived_counted_and_leaves_no_zombie(fault, at, timeout, caplog):
    caplog.set_level(logging.WARNING, logger='ding.envs.faults')
    m = faulty_manager(fault, at, step_timeout=timeout)
    first_pids = m.worker_pids
    steps = 2 * at + 3 if fault == 'raise' else at + 3
    results = [m.step_batch(np.zeros(4, dtype=np.int64)) for _ in range(steps)]
    failed = results[at - 1]  # the env's at-th step: rows flagged as dropped, which collectors leave out
    assert failed.truncated.tolist() == [True, True, False, False]  # envs 0 and 1 share the worker
    assert failed.terminated.tolist() == [False] * 4 and failed.reward.tolist() == [0.0, 0.0, 1.0, 1.0]
    assert np.isnan(failed.episode_return[:2]).all() and failed.episode_length[:2].tolist() == [0, 0]
    assert failed.infos[0]['dropped_episode'] and 'eval_episode_return' not in failed.infos[0]
    assert failed.next_obs[0].tolist() == [at - 1, first_starts(0, 1)[0]]  # the obs acted on
    failures = 2 if fault == 'raise' else 1  # a restarted env raises again on its 50th step
    assert m.worker_restarts == failures and m.dropped_episodes == 2 * failures
    messages = [r.getMessage() for r in caplog.records if r.name == 'ding.envs.faults']
    assert len(messages) == failures and 'restarting its worker (envs [0, 1])' in messages[0]
    # an env that raised is named (the worker tells which); a worker that died or hung, by its envs
    assert ('env 0 failed: RuntimeError: env broke on purpose' if fault == 'raise' else 'envs [0, 1] failed') \
        in messages[0]
    after = results[at]  # collection went on from a fresh, reseeded episode
    assert after.next_obs[:2, 0].tolist() == [1.0, 1.0] and after.next_obs[0, 1] == first_starts(0, 1)[0]
    assert after.next_obs[2:, 0].tolist() == [at + 1] * 2
    last_pids = m.worker_pids
    assert is_gone(first_pids[0]) and last_pids[1] == first_pids[1]
    m.close()
    assert multiprocessing.active_children() == [] and all(is_gone(p) for p in first_pids + last_pids)


def test_failing_more_than_max_retry_in_a_row_raises():
    m = faulty_manager('raise', 1, max_retry=2)  # fails on every first step after each restart
    with pytest.raises(EnvFaultError, match=r'env 0 failed 3 times in a row .*max_retry=2.*env broke on purpose'):
        for _ in range(4):
            m.step_batch(np.zeros(4, dtype=np.int64))
    m.close()
    assert multiprocessing.active_children() == []


SCRIPT = """
import os, signal, sys, numpy as np
sys.path.insert(0, {root!r})
from ding.envs import DingEnvWrapper, SubprocessEnvManagerV2
from tests.envs.mock_envs import CountingEnv
if __name__ == '__main__':
    signal.signal(signal.SIGINT, signal.default_int_handler)  # a parent started in the background ignores it
    m = SubprocessEnvManagerV2([lambda: DingEnvWrapper(CountingEnv(terminate_at=5))] * 4, dict(worker_num=2))
    m.launch()
    print(' '.join(map(str, m.worker_pids)), flush=True)
    for t in range(100000):
        m.step_batch(np.zeros(4, dtype=np.int64))
        if t == 10:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C in the middle of collection
"""


@pytest.mark.slow  # kept out of `make test` (under 2 min); CI runs it
def test_ctrl_c_leaves_no_worker(tmp_path):
    script = tmp_path / 'interrupted.py'
    script.write_text(SCRIPT.format(root=os.getcwd()))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert 'KeyboardInterrupt' in proc.stderr
    pids = [int(p) for p in proc.stdout.split()]
    assert len(pids) == 2 and all(is_gone(p) for p in pids)


def test_a_group_of_the_alternating_sampler_names_envs_by_their_global_ids(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger='ding.envs.faults')
    marker = str(tmp_path / 'failed_once')
    fns = [partial(make_faulty_episodes, None, marker)] * 3 + [partial(make_faulty_episodes, 'once', marker)]
    m = AlternatingSampler(fns, dict(worker_num=2))  # env 3 is env 1 of the second group
    m.seed(0)
    m.launch()
    for _ in range(FAIL_AT):
        result = m.step_batch(np.zeros(4, dtype=np.int64))
    assert result.infos[3]['dropped_episode'] and m.worker_restarts == 1 and m.dropped_episodes == 2
    [message] = [r.getMessage() for r in caplog.records if r.name == 'ding.envs.faults']
    assert 'env 3 failed: RuntimeError: env broke on purpose' in message and 'its worker (envs [2, 3])' in message
    m.close()
    assert multiprocessing.active_children() == []
