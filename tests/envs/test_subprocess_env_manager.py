"""SubprocessEnvManagerV2: the same data as the serial manager, in worker processes."""
import multiprocessing

import gymnasium
import numpy as np
import pytest
from easydict import EasyDict

from ding.envs import BaseEnvManagerV2, DingEnvWrapper, SubprocessEnvManagerV2
from dizoo.classic_control.slow_env.envs import SlowCartPoleEnv

from .mock_envs import CountingEnv, DiengineStyleEnv, first_starts


def counting_fns(n, **kw):
    return [lambda: DingEnvWrapper(CountingEnv(**kw)) for _ in range(n)]


def cartpole_fns(n):
    return [lambda: DingEnvWrapper(gymnasium.make('CartPole-v1')) for _ in range(n)]


def run_pair(fns, steps, cfg=None, seed=3, action_high=2):
    """Step a serial and a subprocess manager with the same random actions; every field
    of every step must agree."""
    serial, sub = BaseEnvManagerV2(fns, cfg), SubprocessEnvManagerV2(fns, dict(cfg or {}, worker_num=3))
    try:
        for m in (serial, sub):
            m.seed(seed)
            m.launch()
        assert np.array_equal(serial.ready_obs, sub.ready_obs)
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(steps):
            actions = rng.integers(0, action_high, len(fns))
            a, b = serial.step_batch(actions), sub.step_batch(actions)
            for field in ('next_obs', 'reward', 'terminated', 'truncated', 'episode_length'):
                assert np.array_equal(getattr(a, field), getattr(b, field)), field
            assert np.array_equal(a.episode_return, b.episode_return, equal_nan=True)
            assert np.array_equal(serial.ready_obs, sub.ready_obs)
            ended += int(a.done.sum())
        return ended, sub
    finally:
        serial.close()
        sub.close()


def test_same_seed_same_steps_as_serial_with_uneven_worker_groups():
    ended, sub = run_pair(cartpole_fns(5), 120)
    assert ended > 0  # episodes ended and were auto-reset in the workers
    assert sub.dropped_episodes == 0 and sub.worker_restarts == 0


def test_counting_env_values_and_eager_reset():
    m = SubprocessEnvManagerV2(counting_fns(2, terminate_at=2), dict(worker_num=2))
    try:
        m.seed(0)
        m.launch()
        starts = [first_starts(i, 2) for i in range(2)]
        first = m.step_batch(np.array([0, 2]))
        assert first.reward.tolist() == [1.0, 3.0]
        assert first.next_obs.tolist() == [[1, starts[0][0]], [1, starts[1][0]]]
        second = m.step_batch(np.array([1, 2]))
        assert second.terminated.tolist() == [True, True]
        assert second.next_obs.tolist() == [[2, starts[0][0]], [2, starts[1][0]]]
        assert m.ready_obs.tolist() == [[0, starts[0][1]], [0, starts[1][1]]]
        assert second.episode_return.tolist() == [3.0, 6.0] and second.episode_length.tolist() == [2, 2]
        assert [info['eval_episode_return'] for info in second.infos] == [3.0, 6.0]
    finally:
        m.close()


def test_episode_num_stops_envs_like_serial():
    cfg = dict(episode_num=2)
    ended, _ = run_pair(counting_fns(4, terminate_at=3), 6, cfg)
    assert ended == 8  # 4 envs x 2 episodes, the second reset done on request, not eagerly


def test_collected_data_matches_serial_with_step_collector():
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import StepCollector

    class ObsSignPolicy:
        transition_keys = ()

        def forward_batch(self, obs, **kwargs):
            return {'action': (obs[:, 2] > 0).astype(np.int64)}

        def reset(self, env_ids=None):
            pass

    cfg = EasyDict(seed=7, policy=dict(collect=dict(n_sample=64, unroll_len=1)))
    batches = []
    for cls in (BaseEnvManagerV2, SubprocessEnvManagerV2):
        env = cls(cartpole_fns(4), dict(worker_num=2))
        collector, ctx = StepCollector(cfg, ObsSignPolicy(), env), OnlineRLContext()
        for _ in range(3):
            collector(ctx)
        batches.append((ctx.trajectories, ctx.env_step, ctx.env_episode))
        env.close()
    (a, step_a, ep_a), (b, step_b, ep_b) = batches
    assert (step_a, ep_a) == (step_b, ep_b) and step_a == 192
    for key in ('obs', 'action', 'reward', 'next_obs', 'done', 'truncated', 'env_id'):
        assert np.array_equal(getattr(a, key), getattr(b, key)), key


def test_compatible_step_and_reset_params_and_box_actions():
    m = SubprocessEnvManagerV2([lambda: DiengineStyleEnv() for _ in range(2)], dict(worker_num=1))
    try:
        m.launch()
        out = m.step({0: np.array([0.5], dtype=np.float32), 1: np.array([-0.5], dtype=np.float32)})
        assert [ts.env_id for ts in out] == [0, 1] and out[0].obs.tolist() == [1.0, 1.0, 1.0]
        out = m.step([np.zeros(1, dtype=np.float32)] * 2)
        assert out[0].done and out[0].info['eval_episode_return'] == 20.0 and out[0].info['truncated']
        with pytest.raises(ValueError, match='outside the action space'):
            m.step_batch(np.array([[2.0], [0.0]], dtype=np.float32))
    finally:
        m.close()


def test_wrong_observation_shape_raises_naming_the_env():
    m = SubprocessEnvManagerV2(counting_fns(2, obs_shape=(3, )), dict(worker_num=2))
    try:
        with pytest.raises(ValueError, match='env 0 returned an observation of shape'):
            m.launch()
    finally:
        m.close()


def test_slow_env_is_registered_cartpole_with_busy_work():
    import math
    from ding.utils.registry import ENV_REGISTRY
    from dizoo.classic_control.slow_env.envs.slow_cartpole_env import burn_cpu
    assert ENV_REGISTRY.lookup('slow_cartpole') is SlowCartPoleEnv
    assert burn_cpu(3) == 1.0 + math.sqrt(2)
    slow, plain = SlowCartPoleEnv(dict(busy_loops=5)), DingEnvWrapper(gymnasium.make('CartPole-v1'))
    for env in (slow, plain):
        env.seed(3)
    assert np.array_equal(slow.reset(), plain.reset())
    assert np.array_equal(slow.step(1).obs, plain.step(1).obs)  # CartPole's own dynamics


def test_slow_env_runs_and_close_leaves_no_child():
    m = SubprocessEnvManagerV2([lambda: SlowCartPoleEnv(dict(busy_loops=10)) for _ in range(4)], dict(worker_num=2))
    m.seed(0)
    m.launch()
    pids = m.worker_pids
    assert len(pids) == 2
    for _ in range(30):
        m.step_batch(np.zeros(4, dtype=np.int64))
    m.close()
    assert m.closed and multiprocessing.active_children() == []
    m.launch()  # relaunch after close starts fresh workers
    assert m.ready_obs.shape == (4, 4) and set(m.worker_pids).isdisjoint(pids)
    m.close()
    assert multiprocessing.active_children() == []


def test_async_step_gives_the_same_result_and_checks_its_order():
    sub, serial = SubprocessEnvManagerV2(counting_fns(2), dict(worker_num=2)), BaseEnvManagerV2(counting_fns(2))
    try:
        for m in (sub, serial):
            m.seed(1)
            m.launch()
        with pytest.raises(RuntimeError, match='no step in flight'):
            sub.step_batch_wait()
        sub.step_batch_async(np.array([2, 0]))
        with pytest.raises(RuntimeError, match='already in flight'):
            sub.step_batch_async(np.array([2, 0]))
        got, want = sub.step_batch_wait(), serial.step_batch(np.array([2, 0]))
        assert got.reward.tolist() == want.reward.tolist() == [3.0, 1.0]
        assert np.array_equal(got.next_obs, want.next_obs) and np.array_equal(sub.ready_obs, serial.ready_obs)
    finally:
        sub.close()
        serial.close()
