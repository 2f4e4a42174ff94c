"""R2D2 acting inside 'worker_inference' env workers: each worker carries its envs' LSTM
states across steps and rollouts, resets them at episode ends and at env resets, and records
the `prev_state` column exactly as the serial collector does with the policy in-process."""
import functools
import multiprocessing

import numpy as np
import pytest

from ding.envs import BaseEnvManagerV2, DingEnvWrapper, create_env_manager
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import StepCollector
from tests.policy.test_r2d2 import H, _collect_cfg, small_policy

from .mock_envs import CountingEnv

STEPS, N_ENV = 8, 3  # 8 steps per call (one unroll_len) over 5-step episodes: ends inside and across rollouts


def counting_fns():
    return [functools.partial(DingEnvWrapper, CountingEnv(terminate_at=5)) for _ in range(N_ENV)]


def serial_rollouts(calls):
    policy = small_policy()
    env = BaseEnvManagerV2(counting_fns())
    # n_sample counts windows of unroll_len=8 steps: one per env, STEPS rows of each
    collector = StepCollector(_collect_cfg(n_sample=N_ENV), policy.collect_mode, env)
    ctx = OnlineRLContext(collect_kwargs={'eps': 0.0})
    out = []
    with env:
        for _ in range(calls):
            collector(ctx)
            out.append(ctx.trajectories)
    return policy, out


@pytest.mark.slow
def test_greedy_r2d2_rollouts_in_workers_equal_the_serial_collector():
    policy, want = serial_rollouts(calls=3)
    mode = small_policy().collect_mode  # another init: the workers must get `policy`'s published weights
    env = create_env_manager(dict(type='worker_inference', worker_num=2), counting_fns())
    try:
        env.seed(_collect_cfg().seed)  # as StepCollector seeds before binding
        env.launch()
        env.bind_actor(policy.collect_mode.worker_actor(), mode.worker_weights(None)[1])
        got = [env.collect_rollout(STEPS, {'eps': 0.0}, publish=policy.collect_mode.worker_weights(None)[1])[0]]
        got += [env.collect_rollout(STEPS, {'eps': 0.0})[0] for _ in range(2)]
        assert got[0].prev_state.shape == (STEPS * N_ENV, 2, H) and got[0].prev_state.dtype == np.float32
        for g, w in zip(got, want):
            for key in ('obs', 'action', 'reward', 'next_obs', 'done', 'env_id'):
                assert np.array_equal(np.asarray(g[key]), np.asarray(w[key])), key
            # batches of 3 envs here and of 1-2 in the workers round differently (seen up to ~1e-5 relative)
            np.testing.assert_allclose(g.prev_state, w.prev_state, rtol=1e-4, atol=1e-5)
        rows = np.concatenate([g.prev_state for g in got]).reshape(-1, 2 * H)
        at_start = np.concatenate([np.asarray(g.obs)[:, 0] == 0 for g in got])
        assert at_start.sum() >= 2 * N_ENV and not np.abs(rows[at_start]).any()  # fresh state at each start
        assert np.abs(rows[~at_start]).max(axis=1).min() > 0  # and carried within episodes
        env.reset()  # a manager reset starts every env, and its actor state, afresh
        again = env.collect_rollout(1, {'eps': 0.0})[0]
        assert np.all(np.asarray(again.obs)[:, 0] == 0) and not np.abs(again.prev_state).any()
    finally:
        env.close()
    assert multiprocessing.active_children() == []


@pytest.mark.slow
def test_step_collector_runs_r2d2_on_worker_inference():
    policy = small_policy()
    env = create_env_manager(dict(type='worker_inference', worker_num=2), counting_fns())
    collector = StepCollector(_collect_cfg(n_sample=N_ENV), policy.collect_mode, env)
    ctx = OnlineRLContext(collect_kwargs={'eps': 0.3})
    try:
        for _ in range(2):
            collector(ctx)
            t = ctx.trajectories
            start = np.asarray(t.obs)[:, 0] == 0
            assert len(t) == STEPS * N_ENV and t.prev_state.shape == (len(t), 2, H)
            assert not np.abs(t.prev_state[start]).any()  # fresh state at each episode start
            assert np.abs(t.prev_state[~start]).reshape((~start).sum(), -1).max(axis=1).min() > 0
    finally:
        env.close()
    assert multiprocessing.active_children() == []


def test_an_actor_column_named_like_a_rollout_column_is_refused():
    from ding.envs.env_manager.worker_inference import _actor_columns
    factory = small_policy().collect_mode.worker_actor()
    assert _actor_columns(factory) == {'prev_state': ((2, H), 'float32')}
    factory.transition_columns = {'reward': ((1, ), 'float32')}
    with pytest.raises(ValueError, match='reward'):
        _actor_columns(factory)


@pytest.mark.slow
def test_a_snapshot_brings_back_the_workers_lstm_states_mid_episode():
    """Resume mid-episode: the envs, the actors' generators and the LSTM states they carry come back,
    so the rollouts after loading equal the ones the original run went on with."""
    policy = small_policy()
    weights = policy.collect_mode.worker_weights(None)[1]

    def sampler():
        env = create_env_manager(dict(type='worker_inference', worker_num=2), counting_fns())
        env.seed(_collect_cfg().seed)
        env.launch()
        env.bind_actor(policy.collect_mode.worker_actor(), weights)
        return env

    original, fresh = sampler(), sampler()
    try:
        original.collect_rollout(3, {'eps': 0.3})  # 3 of 5 steps: every episode is half done
        state = original.state_dict()
        expected = [original.collect_rollout(STEPS, {'eps': 0.3})[0] for _ in range(2)]
        fresh.load_state_dict(state)
        got = [fresh.collect_rollout(STEPS, {'eps': 0.3})[0] for _ in range(2)]
        mid = np.asarray(got[0].obs)[:, 0] != 0  # the rows after the load continue half-done episodes
        assert (np.asarray(got[0].obs)[:, 0] == 3).sum() >= N_ENV
        assert np.abs(got[0].prev_state[mid]).reshape(mid.sum(), -1).max(axis=1).min() > 0  # states carried over
        for g, e in zip(got, expected):
            for key in ('obs', 'action', 'reward', 'done', 'env_id'):
                assert np.array_equal(np.asarray(g[key]), np.asarray(e[key])), key
            assert np.array_equal(g.prev_state, e.prev_state)
    finally:
        original.close()
        fresh.close()
    assert multiprocessing.active_children() == []
