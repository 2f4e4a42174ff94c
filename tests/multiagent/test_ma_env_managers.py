"""Multi-agent dict observations `{agent_state, global_state, action_mask}` with death masking through
every env manager that steps ding envs: the same batches as the serial manager (the subprocess ones
through their shared memory, one shared array per leaf)."""
import functools

import numpy as np
import pytest

from ding.data.batch import Batch
from ding.utils.registry import ENV_MANAGER_REGISTRY
from tests.multiagent.ma_envs import cue_env

MANAGERS = ('subprocess', 'gym_vector', 'alternating', 'auto')


def rollout(manager_type, actions):
    make = functools.partial(cue_env, dict(agent_specific_global_state=True), length=4, die_at=2)
    cfg = dict(worker_num=2) if manager_type in ('subprocess', 'alternating') else {}
    if manager_type == 'auto':  # whichever manager it finds fastest
        cfg = dict(auto_probe_steps=8, auto_warmup_steps=2)
    manager = ENV_MANAGER_REGISTRY.lookup(manager_type)([make] * 4, cfg)
    manager.seed(5)
    manager.launch()
    out = [manager.ready_obs.copy()]
    for a in actions:
        r = manager.step_batch(a)
        out.append((r.next_obs, r.reward, r.terminated, r.truncated, r.episode_return, manager.ready_obs.copy()))
    manager.close()
    return out


def same(a, b):
    if isinstance(a, (Batch, dict)):
        return sorted(a.keys()) == sorted(b.keys()) and all(same(a[k], b[k]) for k in a.keys())
    if isinstance(a, tuple):
        return all(same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == 'f')


@pytest.mark.slow
@pytest.mark.parametrize('manager_type', MANAGERS)
def test_multi_agent_batches_match_the_serial_manager(manager_type):
    actions = np.random.default_rng(0).integers(0, 3, size=(9, 4, 2))
    serial = rollout('base_v2', actions)
    obs = serial[3][0]  # after step 3: agent_1 of every env is dead (death masked)
    assert obs.agent_state.shape == (4, 2, 5) and obs.global_state.shape == (4, 2, 9)
    assert not obs.agent_state[:, 1].any() and (obs.action_mask[:, 1] == [1, 0, 0]).all()
    assert serial[4][3].all() and np.isfinite(serial[4][4]).all()  # episodes end (truncated) at step 4
    assert all(same(x, y) for x, y in zip(serial, rollout(manager_type, actions)))
