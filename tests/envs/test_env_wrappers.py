"""`ding.envs.env_wrappers`: DI-engine's wrappers by name on gymnasium's API, and the
`env.env_wrapper` config of DingEnvWrapper."""
import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from ding.envs import DingEnvWrapper
from ding.envs.env_wrappers import (ActionRepeatWrapper, ActionScaleWrapper, ClipRewardWrapper, DelayRewardWrapper,
                                    EpisodicLifeWrapper, EvalEpisodeReturnWrapper, FireResetWrapper, FlatObsWrapper,
                                    FrameStackWrapper, GymToGymnasiumWrapper, MaxAndSkipWrapper, NoopResetWrapper,
                                    ObsNormWrapper, ObsTransposeWrapper, RamWrapper, RewardNormWrapper,
                                    ScaledFloatFrameWrapper, TimeLimitWrapper, WarpFrameWrapper, create_env_wrapper,
                                    get_default_wrappers, update_shape)


class StepEnv(gymnasium.Env):
    """obs = [t, -t] (float32) after t steps; reward = t; terminated at step `length`."""
    observation_space = spaces.Box(-np.inf, np.inf, shape=(2, ), dtype=np.float32)
    action_space = spaces.Box(-2.0, 4.0, shape=(1, ), dtype=np.float32)

    def __init__(self, length: int = 10) -> None:
        self.length, self.t, self.actions = length, 0, []

    def _obs(self):
        return np.array([self.t, -self.t], dtype=np.float32)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        self.actions.append(action)
        self.t += 1
        return self._obs(), float(self.t), self.t >= self.length, False, {}


class FakeAle:

    def __init__(self) -> None:
        self.n = 3

    def lives(self) -> int:
        return self.n


class AleLikeEnv(gymnasium.Env):
    """RGB frames (20, 16, 3) filled with the step count; 3 lives, one lost every 4 steps."""
    observation_space = spaces.Box(0, 255, shape=(20, 16, 3), dtype=np.uint8)
    action_space = spaces.Discrete(4)

    def __init__(self) -> None:
        self.ale, self.t, self.resets, self.actions = FakeAle(), 0, 0, []

    def get_action_meanings(self):
        return ['NOOP', 'FIRE', 'RIGHT', 'LEFT']

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t, self.ale.n = 0, 3
        self.resets += 1
        return np.zeros((20, 16, 3), np.uint8), {}

    def step(self, action):
        self.actions.append(int(action))
        self.t += 1
        if self.t % 4 == 0:
            self.ale.n -= 1
        return np.full((20, 16, 3), self.t, np.uint8), 1.0 if self.t % 2 else -2.0, self.ale.n == 0, False, {}


def test_frame_stack_time_limit_and_repeat():
    env = FrameStackWrapper(StepEnv(), n_frames=3)
    obs, _ = env.reset()
    assert obs.shape == (3, 2) and env.observation_space.shape == (3, 2) and (obs == 0).all()
    obs, *_ = env.step(np.zeros(1))
    np.testing.assert_array_equal(obs[:, 0], [0, 0, 1])
    env = TimeLimitWrapper(StepEnv(length=100), max_limit=3)
    env.reset()
    ends = [env.step(np.zeros(1)) for _ in range(3)]
    assert [e[3] for e in ends] == [False, False, True] and not ends[-1][2]  # truncated, not terminated
    assert ends[-1][4]['time_limit'] and ends[-1][4]['time_count'] == 3
    env = ActionRepeatWrapper(StepEnv(length=5), action_repeat=3)
    env.reset()
    assert env.step(np.zeros(1))[1] == 1 + 2 + 3
    _, reward, terminated, _, _ = env.step(np.zeros(1))  # stops at the episode end (steps 4, 5)
    assert reward == 4 + 5 and terminated


def test_reward_wrappers():
    env = DelayRewardWrapper(StepEnv(length=5), delay_reward_step=2)
    env.reset()
    assert [env.step(np.zeros(1))[1] for _ in range(5)] == [0.0, 3.0, 0.0, 7.0, 5.0]
    env = ClipRewardWrapper(AleLikeEnv())
    env.reset()
    assert [env.step(0)[1] for _ in range(2)] == [1.0, -1.0]
    env = EvalEpisodeReturnWrapper(StepEnv(length=3))
    env.reset()
    infos = [env.step(np.zeros(1))[4] for _ in range(3)]
    assert 'eval_episode_return' not in infos[0] and infos[-1]['eval_episode_return'][0] == 6.0


def test_action_scale_maps_unit_box_to_bounds():
    inner = StepEnv()
    env = ActionScaleWrapper(inner)
    assert env.action_space.low[0] == -1 and env.action_space.high[0] == 1
    env.reset()
    for a in (-1.0, 1.0, 0.0, 7.0):
        env.step(np.array([a], np.float32))
    np.testing.assert_allclose(np.concatenate(inner.actions), [-2.0, 4.0, 1.0, 4.0])


def test_warp_frame_grayscale_is_the_601_luma_of_each_pixel():
    # WarpFrameWrapper converts in PIL (integer luma); the formula in floats agrees within rounding
    rgb = np.random.default_rng(0).integers(0, 256, (84, 84, 3), dtype=np.uint8)
    env = WarpFrameWrapper(AleLikeEnv(), size=84)
    luma = rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114
    got = env.observation(rgb)
    assert got.dtype == np.uint8 and got.shape == (84, 84)
    assert np.abs(got.astype(float) - np.rint(luma)).max() <= 1


def test_frame_wrappers_on_an_ale_like_env():
    env = WarpFrameWrapper(AleLikeEnv(), size=8)
    assert env.observation_space.shape == (8, 8)
    env.reset()
    frame = env.step(0)[0]
    assert frame.shape == (8, 8) and frame.dtype == np.uint8 and (frame == 1).all()  # gray of (1, 1, 1) is 1
    env = ScaledFloatFrameWrapper(AleLikeEnv())
    env.reset()
    assert env.step(0)[0].dtype == np.float32 and np.isclose(env.step(0)[0].max(), 2 / 255)
    env = ObsTransposeWrapper(AleLikeEnv())
    assert env.observation_space.shape == (3, 20, 16) and env.reset()[0].shape == (3, 20, 16)
    env = MaxAndSkipWrapper(AleLikeEnv(), skip=3)
    env.reset()
    obs, reward, *_ = env.step(2)
    assert (obs == 3).all() and reward == 1 - 2 + 1
    ale = AleLikeEnv()
    env = FireResetWrapper(ale)
    env.reset()
    assert ale.actions == [1]
    ale = AleLikeEnv()
    env = NoopResetWrapper(ale, noop_max=2)
    env.reset(seed=0)
    assert 1 <= len(ale.actions) <= 2 and set(ale.actions) == {0}


def test_episodic_life_ends_on_a_lost_life_and_resets_on_game_over():
    ale = AleLikeEnv()
    env = EpisodicLifeWrapper(ale)
    env.reset()
    terminated = [env.step(2)[2] for _ in range(4)]
    assert terminated == [False, False, False, True] and ale.ale.n == 2
    env.reset()  # a lost life, not a game over: the game goes on with a no-op
    assert ale.resets == 1 and ale.actions[-1] == 0


def test_ram_and_flat_obs():
    class Ram(StepEnv):
        observation_space = spaces.Box(0, 255, shape=(128, ), dtype=np.uint8)

        def _obs(self):
            return np.full(128, self.t, np.uint8)

    env = RamWrapper(Ram())
    assert env.reset()[0].shape == (128, 1, 1) and env.observation_space.dtype == np.float32

    class Grid(gymnasium.Env):
        observation_space = spaces.Dict({'image': spaces.Box(0, 10, shape=(3, 3, 3), dtype=np.uint8),
                                         'mission': spaces.Text(20)})
        action_space = spaces.Discrete(3)

        def reset(self, seed=None, options=None):
            return {'image': np.ones((3, 3, 3), np.uint8), 'mission': 'go to, b'}, {}

    env = FlatObsWrapper(Grid(), maxStrLen=10)
    obs, _ = env.reset()
    assert obs.shape == (27 + 28 * 10, ) == env.observation_space.shape
    codes = obs[27:].reshape(10, 28)
    assert codes[0, ord('g') - ord('a')] == 1 and codes[2, 26] == 1 and codes[5, 27] == 1 and codes[8:].sum() == 0


def test_gym_to_gymnasium_gives_the_legacy_api():
    env = GymToGymnasiumWrapper(TimeLimitWrapper(StepEnv(length=100), max_limit=2))
    env.seed(3)
    assert env.reset().shape == (2, )
    assert len(env.step(np.zeros(1))) == 4
    _, _, done, info = env.step(np.zeros(1))
    assert done and info['TimeLimit.truncated']


def test_default_chains_and_wrong_names():
    names = [w.type for w in get_default_wrappers('atari_default', 'PongNoFrameskip-v4', 'collector')]
    assert names == ['noop_reset', 'max_and_skip', 'episodic_life', 'fire_reset', 'warp_frame', 'scaled_float_frame',
                     'clip_reward', 'frame_stack', 'eval_episode_return']
    assert 'clip_reward' not in [w.type for w in get_default_wrappers('atari_default', 'Breakout', 'evaluator')]
    env = DingEnvWrapper(AleLikeEnv(), cfg={'env_wrapper': 'atari_default', 'env_id': 'PongNoFrameskip-v4'})
    assert env.observation_space.shape == (4, 84, 84) and env.observation_space.dtype == np.float32
    assert env.reset().shape == (4, 84, 84)
    with pytest.raises(ValueError, match=r"unknown env wrapper type 'frame_stak' \(did you mean 'frame_stack'\?\); "
                       r"valid types: \[.*'obs_norm'.*\]"):
        DingEnvWrapper(StepEnv(), cfg={'env_wrapper': [{'type': 'frame_stak'}]})
    with pytest.raises(ValueError, match=r"unknown env_wrapper 'atari_defalt'.*\['default', 'mujoco_default', "
                       r"'atari_default', 'gym_hybrid_default'\]"):
        DingEnvWrapper(StepEnv(), cfg={'env_wrapper': 'atari_defalt'})
    with pytest.raises(ValueError, match='needs a "type"'):
        create_env_wrapper(StepEnv(), {'kwargs': {}})


def test_update_shape():
    assert update_shape((210, 160, 3), 6, 1, ['warp_frame', {'type': 'frame_stack', 'kwargs': {'n_frames': 3}}]) == \
        ((3, 84, 84), 6, 1)
    assert update_shape((4, ), 2, 1, ['eval_episode_return', 'clip_reward']) == ((4, ), 2, 1)
    assert update_shape((210, 160, 3), 6, 1, ['WarpFrameWrapper', 'FrameStackWrapper'])[0] == (4, 84, 84)


def test_ding_env_wrapper_with_specs_callables_and_a_legacy_env():
    class LegacyEnv(gymnasium.Env):  # DI-engine examples subclass gym.Env but keep the old API
        observation_space = StepEnv.observation_space
        action_space = spaces.Discrete(2)

        def __init__(self):
            self.t = 0

        def reset(self):
            self.t = 0
            return np.zeros(2, np.float32)

        def step(self, action):
            self.t += 1
            return np.full(2, self.t, np.float32), 2.0, self.t >= 3, {}

    env = DingEnvWrapper(LegacyEnv(), cfg={'env_wrapper': [lambda e: EvalEpisodeReturnWrapper(e)]})
    env.seed(0)
    env.reset()
    steps = [env.step(np.array([1])) for _ in range(3)]
    assert [s.done for s in steps] == [False, False, True]
    assert float(np.asarray(steps[-1].info['eval_episode_return']).reshape(())) == 6.0
    assert len(env.gym_step(0)) == 5  # the managers' API
    bare = DingEnvWrapper(LegacyEnv())  # no wrappers: still the gymnasium API, seeding skipped (no seed())
    bare.seed(0)
    assert bare.gym_reset()[0].shape == (2, ) and len(bare.gym_step(0)) == 5
    plain = DingEnvWrapper(StepEnv(), cfg={'env_wrapper': 'default'})
    assert plain.gym_step == plain.env.step  # the default chain adds nothing to the hot path


def test_in_env_normalisers_freeze_for_the_evaluator():
    cfg = {'env_wrapper': [{'type': 'obs_norm', 'kwargs': {'warmup': 2}},
                           {'type': 'reward_norm', 'kwargs': {'reward_discount': 0.9, 'warmup': 2}}]}
    collector, evaluator = DingEnvWrapper(StepEnv(), cfg=cfg), DingEnvWrapper(StepEnv(), cfg=cfg, caller='evaluator')
    for env in (collector, evaluator):
        env.reset()
        steps = [env.step(np.zeros(1)) for _ in range(10)]
    obs_norm, reward_norm = collector.env.env, collector.env
    assert isinstance(obs_norm, ObsNormWrapper) and isinstance(reward_norm, RewardNormWrapper)
    assert obs_norm.rms.count == pytest.approx(10 + 1e-4)
    np.testing.assert_allclose(obs_norm.rms.mean, [5.5, -5.5], rtol=1e-4)  # the epsilon count weighs in
    assert evaluator.env.env.frozen and evaluator.env.env.rms.count == pytest.approx(1e-4)
    assert steps[-1].info['eval_episode_return'] == 55.0  # raw return, though rewards are scaled
    # built from cfg.is_train=False (DI-engine's evaluator env cfg) the same way
    eval_cfg = DingEnvWrapper.create_evaluator_env_cfg(dict(cfg, evaluator_env_num=1))[0]
    assert DingEnvWrapper(StepEnv(), cfg=eval_cfg).env.env.frozen


def test_clone_rewraps_for_the_evaluator():
    env = DingEnvWrapper(StepEnv(), cfg={'env_wrapper': ['obs_norm']})
    clone = env.clone('evaluator')
    assert clone.env is not env.env and clone.env.frozen and not env.env.frozen


def test_a_wrapper_argument_outside_kwargs_is_refused_not_dropped():
    cfg = {'env_wrapper': [{'type': 'obs_norm', 'clip_range': (-10, 10)}]}
    with pytest.raises(ValueError, match=r"env wrapper spec 'obs_norm' has keys \['clip_range'\] beside type / "
                                         r"kwargs / import_names; the wrapper's arguments go under kwargs"):
        DingEnvWrapper(StepEnv(), cfg=cfg)
