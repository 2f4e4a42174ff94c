"""General wrappers (gymnasium's 5-tuple API): action repeat and scaling,
delayed rewards, episode returns in the final info, time limits, flat minigrid observations,
and the converter to the legacy gym API.

Time limits end an episode as *truncated* (not terminated), so learners keep bootstrapping
through them; the info also carries `info['time_limit']` / `info['time_count']`.
"""
from typing import Any, Optional, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces

from ding.envs.base_env import BaseEnv, BaseEnvTimestep
from ding.utils.registry import ENV_WRAPPER_REGISTRY


@ENV_WRAPPER_REGISTRY.register('action_repeat')
class ActionRepeatWrapper(gymnasium.Wrapper):
    """Repeat each action `action_repeat` times (stopping at an episode end); rewards summed."""

    def __init__(self, env: gymnasium.Env, action_repeat: int = 1) -> None:
        super().__init__(env)
        self.action_repeat = int(action_repeat)

    def step(self, action: Any) -> tuple:
        total = 0.0
        for _ in range(self.action_repeat):
            obs, reward, terminated, truncated, info = self.env.step(action)
            total += float(reward or 0)
            if terminated or truncated:
                break
        return obs, total, terminated, truncated, info


@ENV_WRAPPER_REGISTRY.register('delay_reward')
class DelayRewardWrapper(gymnasium.Wrapper):
    """Reward 0, except every `delay_reward_step` steps (and at the episode end), where the
    reward is the sum since the last payout."""

    def __init__(self, env: gymnasium.Env, delay_reward_step: int = 0) -> None:
        super().__init__(env)
        self._delay_reward_step = int(delay_reward_step)
        self._delay_reward_duration, self._current_delay_reward = 0, 0.0

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        self._delay_reward_duration, self._current_delay_reward = 0, 0.0
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._current_delay_reward += float(reward)
        self._delay_reward_duration += 1
        if terminated or truncated or self._delay_reward_duration >= self._delay_reward_step:
            reward, self._current_delay_reward, self._delay_reward_duration = self._current_delay_reward, 0.0, 0
        else:
            reward = 0.0
        return obs, reward, terminated, truncated, info


@ENV_WRAPPER_REGISTRY.register('eval_episode_return')
class EvalEpisodeReturnWrapper(gymnasium.Wrapper):
    """Sum the rewards of the episode; the final step's info gets `eval_episode_return`
    (a float32 array of one element)."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self._eval_episode_return = 0.0

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        self._eval_episode_return = 0.0
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._eval_episode_return += float(np.asarray(reward).reshape(()))
        if terminated or truncated:
            info = dict(info, eval_episode_return=np.array([self._eval_episode_return], dtype=np.float32))
        return obs, reward, terminated, truncated, info


@ENV_WRAPPER_REGISTRY.register('time_limit')
class TimeLimitWrapper(gymnasium.Wrapper):
    """Truncate the episode after `max_limit` steps."""

    def __init__(self, env: gymnasium.Env, max_limit: int) -> None:
        super().__init__(env)
        self.max_limit = int(max_limit)
        self.time_count = 0

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        self.time_count = 0
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.time_count += 1
        limit = self.time_count >= self.max_limit
        info = dict(info, time_limit=limit, time_count=self.time_count)
        return obs, reward, terminated, bool(truncated) or limit, info


@ENV_WRAPPER_REGISTRY.register('action_scale')
class ActionScaleWrapper(gymnasium.ActionWrapper):
    """Actions in [-1, 1] (clipped there) mapped linearly onto the Box action space's bounds;
    what the `act_scale=True` env option does."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        space = env.action_space
        if not isinstance(space, spaces.Box):
            raise TypeError(f'ActionScaleWrapper needs a Box action space; got {space}')
        self._low, self._high = space.low.astype(np.float64), space.high.astype(np.float64)
        self.action_space = spaces.Box(-1.0, 1.0, shape=space.shape, dtype=space.dtype)

    def action(self, action: Any) -> np.ndarray:
        a = np.clip(np.asarray(action, dtype=np.float64), -1.0, 1.0)
        return ((a + 1.0) * 0.5 * (self._high - self._low) + self._low).astype(self.env.action_space.dtype)


class RewardFloorWrapper(gymnasium.RewardWrapper):
    """Rewards below `floor` raised to it (the `rew_clip=True` env option: -10)."""

    def __init__(self, env: gymnasium.Env, floor: float = -10.0) -> None:
        super().__init__(env)
        self.floor = float(floor)

    def reward(self, reward: float) -> float:
        return max(self.floor, float(reward))


class FlatObsWrapper(gymnasium.ObservationWrapper):
    """Minigrid: the `image` observation flattened and the `mission` string one-hot encoded
    (28 codes: a-z, space, comma; `maxStrLen` characters), as one float32 vector."""
    num_char_codes = 28

    def __init__(self, env: gymnasium.Env, maxStrLen: int = 96) -> None:
        super().__init__(env)
        space = env.observation_space
        if not isinstance(space, spaces.Dict) or 'image' not in space.spaces:
            raise TypeError(f'FlatObsWrapper needs a Dict observation space with an "image" key (minigrid); '
                            f'got {space}')
        self.maxStrLen = int(maxStrLen)
        size = int(np.prod(space.spaces['image'].shape)) + self.num_char_codes * self.maxStrLen
        self.observation_space = spaces.Box(low=0, high=255, shape=(size, ), dtype=np.float32)
        self.cachedStr: Optional[str] = None
        self.cachedArray: Optional[np.ndarray] = None

    def observation(self, obs: Any) -> np.ndarray:
        mission = obs['mission']
        if mission != self.cachedStr:
            self.cachedArray = self._encode(mission)
            self.cachedStr = mission
        return np.concatenate((np.asarray(obs['image'], dtype=np.float32).ravel(), self.cachedArray.ravel()))

    def _encode(self, mission: str) -> np.ndarray:
        if len(mission) > self.maxStrLen:
            raise ValueError(f'FlatObsWrapper: mission string too long ({len(mission)} > {self.maxStrLen} chars)')
        codes = np.zeros((self.maxStrLen, self.num_char_codes), dtype=np.float32)
        for i, ch in enumerate(mission.lower()):
            if 'a' <= ch <= 'z':
                codes[i, ord(ch) - ord('a')] = 1
            elif ch in ' ,':
                codes[i, 26 + ' ,'.index(ch)] = 1
            else:
                raise ValueError(f'FlatObsWrapper: character {ch!r} cannot be encoded (a-z, space, comma)')
        return codes


class GymToGymnasiumWrapper:
    """A gymnasium env seen through the legacy gym API: `reset() -> obs` (seeded by an
    earlier `seed(s)`), `step() -> (obs, reward, done, info)` with `done = terminated or
    truncated` and `info['TimeLimit.truncated']` on a truncation. `DingEnvWrapper` accepts
    either API, so this is only for code written against the old one."""

    def __init__(self, env: gymnasium.Env) -> None:
        if not isinstance(env, gymnasium.Env):
            raise TypeError(f'GymToGymnasiumWrapper wraps a gymnasium.Env; got {type(env).__name__}')
        self.env = env
        self._seed: Optional[int] = None

    def seed(self, seed: int) -> None:
        self._seed = seed

    def reset(self) -> Any:
        seed, self._seed = self._seed, None  # seed once; later resets continue the env's RNG
        return self.env.reset(seed=seed)[0] if seed is not None else self.env.reset()[0]

    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if truncated and not terminated:
            info = dict(info, **{'TimeLimit.truncated': True})
        return obs, reward, bool(terminated or truncated), info

    def __getattr__(self, name: str) -> Any:
        if name == 'env':
            raise AttributeError(name)
        return getattr(self.env, name)


@ENV_WRAPPER_REGISTRY.register('gym_hybrid_dict_action')
class GymHybridDictActionWrapper(gymnasium.ActionWrapper):
    """gym-hybrid: a Dict action {'type', 'mask', 'args'} turned into the env's (type, args) tuple."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.action_space = spaces.Dict({
            'type': spaces.Discrete(3),
            'mask': spaces.Box(low=0, high=1, shape=(2, ), dtype=np.int64),
            'args': spaces.Box(low=np.array([0., -1.], dtype=np.float32), high=np.array([1., 1.], dtype=np.float32),
                               dtype=np.float32),
        })

    def action(self, action: dict) -> tuple:
        return action['type'], action['args']


@ENV_WRAPPER_REGISTRY.register('obs_plus_prev_action_reward')
class ObsPlusPrevActRewWrapper(gymnasium.Wrapper):
    """Observation = {'obs', 'prev_action', 'prev_reward_extrinsic'} (NGU); -1 / 0 before the first step."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.observation_space = spaces.Dict({
            'obs': env.observation_space,
            'prev_action': env.action_space,
            'prev_reward_extrinsic': spaces.Box(low=-np.inf, high=np.inf, shape=(1, ), dtype=np.float32),
        })
        self.prev_action, self.prev_reward_extrinsic = -1, 0.0

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        obs, info = self.env.reset(**kwargs)
        return self._wrap(obs), info

    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        out = self._wrap(obs)
        self.prev_action, self.prev_reward_extrinsic = action, reward
        return out, reward, terminated, truncated, info

    def _wrap(self, obs: Any) -> dict:
        return {'obs': obs, 'prev_action': self.prev_action, 'prev_reward_extrinsic': self.prev_reward_extrinsic}


def _with_reward(obs: Any, reward: Any) -> dict:
    return {'obs': obs, 'reward': np.asarray(reward, dtype=np.float32).reshape(1)}


def _reward_in_obs_space(obs_space: Any) -> spaces.Dict:
    return spaces.Dict({'obs': obs_space, 'reward': spaces.Box(low=-np.inf, high=np.inf, shape=(1, ),
                                                               dtype=np.float32)})


@ENV_WRAPPER_REGISTRY.register('reward_in_obs')
class AllinObsWrapper(gymnasium.Wrapper):
    """Observation = {'obs': obs, 'reward': [last reward]} (Decision Transformer); reward 0 after a reset.

    Wraps a gymnasium env, or a ding `BaseEnv`
    (`AllinObsWrapper(LunarLanderEnv(cfg.env))`): then the result is an `AllinObsEnv`, a ding env."""

    def __new__(cls, env: Any = None, *args: Any, **kwargs: Any) -> Any:  # env None: copy / unpickle
        if isinstance(env, BaseEnv):  # a ding env is not a gymnasium.Env: wrap it at the ding level
            return AllinObsEnv(env)
        return super().__new__(cls)

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.observation_space = _reward_in_obs_space(env.observation_space)

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        obs, info = self.env.reset(**kwargs)
        return _with_reward(obs, 0.0), info

    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return _with_reward(obs, reward), reward, terminated, truncated, info


class AllinObsEnv(BaseEnv):
    """`AllinObsWrapper` over a ding env: both of its levels (reset/step and the env managers'
    gym_reset/gym_step) put the last reward in the observation; everything else is the env's."""

    def __init__(self, env: BaseEnv) -> None:
        self._env = env
        self._cfg = getattr(env, '_cfg', None)

    @property
    def env(self) -> BaseEnv:
        return self._env

    def reset(self) -> dict:
        return _with_reward(self._env.reset(), 0.0)

    def step(self, action: Any) -> BaseEnvTimestep:
        obs, reward, done, info = self._env.step(action)
        return BaseEnvTimestep(_with_reward(obs, reward), reward, done, info)

    def gym_reset(self) -> Tuple[dict, dict]:
        obs, info = self._env.gym_reset()
        return _with_reward(obs, 0.0), info

    def gym_step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self._env.gym_step(action)
        return _with_reward(obs, reward), reward, terminated, truncated, info

    def seed(self, seed: int, dynamic_seed: bool = True) -> None:
        self._env.seed(seed, dynamic_seed)

    def close(self) -> None:
        self._env.close()

    @property
    def observation_space(self) -> spaces.Dict:
        return _reward_in_obs_space(self._env.observation_space)

    @property
    def action_space(self) -> Any:
        return self._env.action_space

    @property
    def reward_space(self) -> Any:
        return self._env.reward_space

    def random_action(self) -> Any:
        return self._env.random_action()

    def enable_save_replay(self, replay_path: Optional[str]) -> None:
        self._env.enable_save_replay(replay_path)

    def __getattr__(self, name: str) -> Any:  # render, clone, ...: the wrapped env's
        if name.startswith('_'):
            raise AttributeError(name)
        return getattr(self._env, name)

    def __repr__(self) -> str:
        return f'AllinObsWrapper({self._env!r})'
