"""`env_manager.type='alternating'` in a normal pipeline: the collector and the evaluator give
exactly what the serial manager gives for the same seed, the config is validated, and no
worker outlives `close()`."""
import copy
import functools
import multiprocessing
import os

import gymnasium
import numpy as np
import pytest
from easydict import EasyDict

from ding.config import compile_config
from ding.envs import BaseEnvManagerV2, DingEnvWrapper, create_env_manager
from ding.envs.env_manager.alternating_sampler import AlternatingSampler
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import StepCollector, interaction_evaluator
from ding.utils import set_pkg_seed
from dizoo.classic_control.cartpole.config.cartpole_dqn_config import create_config, main_config

from .mock_envs import CountingEnv


def cartpole_fns(n):
    return [lambda: DingEnvWrapper(gymnasium.make('CartPole-v1')) for _ in range(n)]


def counting_env(terminate_at):
    return DingEnvWrapper(CountingEnv(terminate_at=terminate_at))


class PoleSignPolicy:
    """Deterministic, row by row: push towards the side the pole leans to, but late, so
    episodes end after a few dozen steps. Stores `value` per transition."""
    transition_keys = ('value', )

    def __init__(self):
        self.kwargs, self.reset_ids = [], []

    def forward_batch(self, obs, **kwargs):
        self.kwargs.append(kwargs)
        return {'action': (obs[:, 2] > 0.05).astype(np.int64), 'value': (obs[:, 0] * 2).astype(np.float32)}

    def reset(self, env_ids=None):
        self.reset_ids.extend(env_ids or [])


def make_cfg(n_sample=200, n_evaluator_episode=6):
    return EasyDict(seed=7, env=dict(n_evaluator_episode=n_evaluator_episode, stop_value=10**6),
                    policy=dict(collect=dict(n_sample=n_sample, unroll_len=1), eval=dict(evaluator=dict(eval_freq=1))))


def collect_three_times(manager_type):
    """Random warm-up (8 rows) then two policy calls of 200 rows; every ctx field written."""
    set_pkg_seed(0, use_cuda=False)  # the random policy draws its seed from numpy
    env = create_env_manager(dict(type=manager_type, worker_num=2), cartpole_fns(4))
    policy = PoleSignPolicy()
    collector = StepCollector(make_cfg(), policy, env, random_collect_size=8)
    ctx = OnlineRLContext(collect_kwargs={'eps': 0.25})
    calls = []
    try:
        for _ in range(3):
            collector(ctx)
            calls.append((ctx.trajectories, list(ctx.trajectory_end_idx), ctx.env_step, ctx.env_episode))
    finally:
        env.close()
    return calls, policy


def test_step_collector_over_alternating_gives_the_serial_batches():
    serial, serial_policy = collect_three_times('base_v2')
    alternating, alternating_policy = collect_three_times('alternating')
    assert [c[1:] for c in alternating] == [c[1:] for c in serial]
    assert [(c[1], c[2]) for c in serial] == [([1, 3, 5, 7], 8), ([49, 99, 149, 199], 208), ([49, 99, 149, 199], 408)]
    assert serial[-1][3] >= 8  # episodes ended in both groups, so auto-reset is part of what is compared
    assert {0, 3} <= set(serial_policy.reset_ids)
    for (got, *_), (want, *_) in zip(alternating, serial):
        assert sorted(got.keys()) == sorted(want.keys()) == sorted(
            ['obs', 'action', 'reward', 'next_obs', 'done', 'truncated', 'env_id', 'value'])
        for key in want.keys():
            assert got[key].dtype == want[key].dtype and np.array_equal(got[key], want[key]), key
    assert sorted(alternating_policy.reset_ids) == sorted(serial_policy.reset_ids)
    assert {tuple(k.items()) for k in alternating_policy.kwargs} == {(('eps', 0.25), )}


def test_evaluator_over_alternating_gives_the_serial_returns():
    cfg = make_cfg(n_evaluator_episode=6)
    serial = BaseEnvManagerV2(cartpole_fns(4))
    alternating = AlternatingSampler(cartpole_fns(4), dict(worker_num=2))
    results = []
    try:
        for env in (serial, alternating, alternating):  # twice: every evaluation reseeds
            ctx = OnlineRLContext()
            interaction_evaluator(cfg, PoleSignPolicy(), env)(ctx)
            results.append((ctx.eval_output['episode_return'], ctx.eval_value))
    finally:
        serial.close()
        alternating.close()
    assert results[1] == results[2] == results[0]
    returns = results[0][0]
    assert len(returns) == 6 and len(set(returns)) > 1  # quota [2, 2, 1, 1], not all alike


def test_manager_surface_matches_serial_with_finished_groups():
    """episode_num=1 and envs ending after 1, 2, 3, 4 steps: group 0 (envs 0, 1) is done
    after step 2 and gives idle rows, exactly as the serial manager does for its envs."""
    fns = [functools.partial(counting_env, k) for k in (1, 2, 3, 4)]
    cfg = dict(episode_num=1, worker_num=2)
    with BaseEnvManagerV2(fns, cfg) as serial, AlternatingSampler(fns, cfg) as alternating:
        for env in (serial, alternating):
            env.seed([5, 6, 7, 8])
            env.launch()
        assert np.array_equal(alternating.ready_obs, serial.ready_obs)
        assert alternating.ready_obs.dtype == np.float32 and alternating.ready_obs_id == [0, 1, 2, 3]
        for t in range(4):
            want = serial.step_batch(np.ones(4, np.int64))
            got = alternating.step_batch(np.ones(4, np.int64))
            for name in want._fields[:-1]:
                assert np.array_equal(getattr(got, name), getattr(want, name), equal_nan=True), (t, name)
            assert alternating.ready_obs_id == serial.ready_obs_id
        assert alternating.ready_obs_id == [] and alternating.done and serial.done
        with pytest.raises(RuntimeError, match='finished its episodes'):
            alternating.step_batch(np.ones(4, np.int64))
        alternating.reset({1: None, 3: None})  # only envs 1 and 3 (one per group) again
        assert alternating.ready_obs_id == [1, 3] and not alternating.done
        assert [ts.env_id for ts in alternating.step({1: 0, 3: 2})] == [1, 3]
        with pytest.raises(ValueError, match='needs 4 actions'):
            alternating.step_batch(np.ones(3, np.int64))


def test_misspelt_manager_key_names_the_closest_valid_key():
    create = copy.deepcopy(create_config)
    create.env_manager = dict(type='alternating')
    main = copy.deepcopy(main_config)
    main.env.manager = dict(worker_num=2, step_timeout=5)
    cfg = compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    assert (cfg.env.manager.type, cfg.env.manager.worker_num, cfg.env.manager.step_timeout) == ('alternating', 2, 5)
    assert cfg.env.manager.context == 'forkserver'  # the subprocess keys are declared too
    main.env.manager = dict(worker_nums=2)
    with pytest.raises(KeyError, match=r"cfg.env.manager.worker_nums \(did you mean 'worker_num'\?\)"):
        compile_config(main, create_cfg=create, auto=True, save_cfg=False)


def test_close_leaves_no_child_process():
    env = create_env_manager(dict(type='alternating', worker_num=4), cartpole_fns(4))
    assert isinstance(env, AlternatingSampler)
    with env:
        env.seed(0)
        env.launch()
        pids = env.worker_pids
        assert len(pids) == 4 and all(os.path.exists(f'/proc/{pid}') for pid in pids)
    assert env.closed and multiprocessing.active_children() == []
    assert not any(os.path.exists(f'/proc/{pid}') for pid in pids)


def test_needs_two_envs():
    with pytest.raises(ValueError, match='at least 2 envs'):
        AlternatingSampler(cartpole_fns(1))
