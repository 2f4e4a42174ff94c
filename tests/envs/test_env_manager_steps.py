"""BaseEnvManagerV2: the batched hot path, auto-reset, seeding and the compatible step."""
import gymnasium
import numpy as np
import pytest

from ding.envs import BaseEnvManager, BaseEnvManagerV2, DingEnvWrapper
from ding.envs.env_manager.step_batch import EnvTimestep

from .mock_envs import CountingEnv, DiengineStyleEnv, first_starts


def counting_manager(n=3, cfg=None, cls=BaseEnvManagerV2, **kw):
    return cls([lambda: DingEnvWrapper(CountingEnv(**kw)) for _ in range(n)], cfg)


def test_ready_obs_is_stacked_float32_with_seed_plus_env_index():
    m = counting_manager(3)
    m.seed(10)
    m.launch()
    obs = m.ready_obs
    assert obs.dtype == np.float32 and obs.shape == (3, 2)
    assert obs[:, 1].tolist() == [first_starts(10 + i, 1)[0] for i in range(3)]
    assert obs[:, 0].tolist() == [0.0, 0.0, 0.0]


def test_step_batch_values_and_auto_reset():
    m = counting_manager(2, terminate_at=2)
    m.seed(0)
    m.launch()
    starts = [first_starts(i, 2) for i in range(2)]
    first = m.step_batch(np.array([0, 2]))
    assert first.reward.dtype == np.float32 and first.reward.tolist() == [1.0, 3.0]
    assert first.next_obs.tolist() == [[1, starts[0][0]], [1, starts[1][0]]]
    assert first.terminated.tolist() == [False, False] and first.truncated.tolist() == [False, False]
    assert np.isnan(first.episode_return).all() and first.episode_length.tolist() == [0, 0]
    second = m.step_batch(np.array([1, 2]))
    # next_obs holds the terminal observation; ready_obs the reset one (RNG continues)
    assert second.next_obs.tolist() == [[2, starts[0][0]], [2, starts[1][0]]]
    assert m.ready_obs.tolist() == [[0, starts[0][1]], [0, starts[1][1]]]
    assert second.terminated.tolist() == [True, True] and second.done.tolist() == [True, True]
    assert second.episode_return.tolist() == [3.0, 6.0]
    assert second.episode_length.tolist() == [2, 2]
    assert [info['eval_episode_return'] for info in second.infos] == [3.0, 6.0]
    third = m.step_batch(np.array([0, 0]))
    assert third.reward.tolist() == [1.0, 1.0] and not third.done.any()


def test_arrays_handed_out_are_never_rewritten():
    m = counting_manager(2, terminate_at=1)
    m.launch()
    before = m.ready_obs
    kept = before.copy()
    result = m.step_batch(np.array([0, 0]))
    terminal = result.next_obs.copy()
    m.step_batch(np.array([0, 0]))
    assert np.array_equal(before, kept) and np.array_equal(result.next_obs, terminal)


def test_truncated_episode_is_not_terminated():
    m = counting_manager(1, terminate_at=100, truncate_at=2)
    m.launch()
    m.step_batch(np.array([0]))
    r = m.step_batch(np.array([0]))
    assert r.truncated.tolist() == [True] and r.terminated.tolist() == [False]
    assert r.episode_length.tolist() == [2]


def test_same_seed_gives_identical_cartpole_obs_sequences():
    actions = np.random.default_rng(1).integers(0, 2, size=(120, 4))

    def run(seed):
        m = BaseEnvManagerV2([lambda: DingEnvWrapper(gymnasium.make('CartPole-v1')) for _ in range(4)])
        m.seed(seed)
        m.launch()
        seq = [m.ready_obs]
        for a in actions:
            seq.append(m.step_batch(a).next_obs)
            seq.append(m.ready_obs)
        m.close()
        return np.stack(seq)

    a, b, c = run(3), run(3), run(4)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_static_seed_makes_every_reset_repeat():
    m = counting_manager(2, terminate_at=1)
    m.seed(20, dynamic_seed=False)
    m.launch()
    expected = [first_starts(20, 1)[0], first_starts(21, 1)[0]]
    for _ in range(3):
        m.step_batch(np.array([0, 0]))
        assert m.ready_obs[:, 1].tolist() == expected
    m.reset()
    assert m.ready_obs[:, 1].tolist() == expected


def test_seed_list_and_dict_forms():
    m = counting_manager(2)
    m.seed([5, 9])
    m.launch()
    assert m.ready_obs[:, 1].tolist() == [first_starts(5, 1)[0], first_starts(9, 1)[0]]
    m.seed({1: 2})
    m.reset()
    assert m.ready_obs[1, 1] == first_starts(2, 1)[0]
    with pytest.raises(ValueError, match='3 seeds for 2 envs'):
        m.seed([1, 2, 3])


def test_compatible_step_v2_returns_timesteps_with_env_id():
    m = counting_manager(2, terminate_at=1)
    m.launch()
    out = m.step({0: np.array([1]), 1: np.array([2])})
    assert [type(t) for t in out] == [EnvTimestep, EnvTimestep]
    assert [t.env_id for t in out] == [0, 1]
    assert [t.reward.tolist() for t in out] == [[2.0], [3.0]]
    assert [t.done for t in out] == [True, True]
    obs, reward, done, info = out[0]
    assert info['terminated'] is True and info['truncated'] is False and info['eval_episode_return'] == 2.0
    assert obs.tolist()[0] == 1.0
    assert [t.env_id for t in m.step([0, 0])] == [0, 1]
    assert [t.env_id for t in m.step({0: 1})] == [0]  # as DI-engine: only the env ids given step
    with pytest.raises(ValueError, match='subset of the ready envs'):
        m.step({2: 1})


def test_compatible_step_v1_returns_a_dict():
    m = counting_manager(2, cls=BaseEnvManager)
    m.launch()
    out = m.step({0: 0, 1: 1})
    assert sorted(out) == [0, 1] and out[1].env_id == 1 and out[1].reward.tolist() == [2.0]


def test_env_provided_episode_return_wins_and_diengine_env_works():
    m = BaseEnvManagerV2([DiengineStyleEnv for _ in range(2)])
    m.launch()
    m.step_batch(np.zeros((2, 1), dtype=np.float32))
    r = m.step_batch(np.zeros(2, dtype=np.float32))  # [n] accepted for a (1,) Box
    assert r.truncated.tolist() == [True, True] and r.terminated.tolist() == [False, False]
    assert r.episode_return.tolist() == [20.0, 20.0] and r.episode_length.tolist() == [2, 2]
    assert r.next_obs.tolist() == [[2.0] * 3] * 2 and m.ready_obs.tolist() == [[0.0] * 3] * 2


def test_raw_gymnasium_env_from_env_fn_is_wrapped():
    m = BaseEnvManagerV2([lambda: gymnasium.make('CartPole-v1')])
    m.launch()
    assert m.ready_obs.shape == (1, 4) and m.step_batch(np.array([1])).reward.tolist() == [1.0]


def test_one_element_reward_arrays_are_flattened():
    class ArrayRewardEnv(CountingEnv):

        def step(self, action):
            obs, reward, terminated, truncated, info = super().step(action)
            return obs, np.array([reward]), terminated, truncated, info

    m = BaseEnvManagerV2([lambda: DingEnvWrapper(ArrayRewardEnv()) for _ in range(2)])
    m.launch()
    r = m.step_batch(np.array([1, 2]))
    assert r.reward.shape == (2, ) and r.reward.tolist() == [2.0, 3.0]
