"""`DingEnvWrapper`: a gymnasium (or legacy gym) env seen as a ding `BaseEnv`.

Why it exists: pipelines written for DI-engine wrap `gym.make(id)` in it and expect
`reset() -> obs` (float32 array) and `step() -> BaseEnvTimestep` with
`info['eval_episode_return']` at the end of an episode. Env managers instead call
`gym_step`, which is the wrapped env's own `step` (no per-step work added): the manager
converts observations to float32 once per batch while stacking them, and keeps episode
returns in its own arrays.

Terminated and truncated stay distinct: `timestep.done = terminated or truncated`, and
`info['terminated']` / `info['truncated']` say which one happened, so a learner keeps
bootstrapping through a time-limit truncation.
"""
from typing import Any, Optional, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces

from ding.envs.base_env import BaseEnv, BaseEnvTimestep
from ding.envs.gym_compat import LegacyGymAdapter, to_gymnasium_space


class DingEnvWrapper(BaseEnv):
    """`DingEnvWrapper(env=None, cfg=None)`: wrap `env`, or `gymnasium.make(cfg.env_id,
    **cfg.env_kwargs)` when `env` is None."""
    config = dict(env_id=None, env_kwargs=dict())

    def __init__(self, env: Any = None, cfg: Any = None, seed_api: bool = True, caller: str = 'collector',
                 is_gymnasium: Optional[bool] = None) -> None:
        super().__init__(cfg)
        if env is None:
            if not self._cfg.env_id:
                raise ValueError('DingEnvWrapper needs an env or cfg.env_id (a gymnasium id such as "CartPole-v1")')
            env = gymnasium.make(self._cfg.env_id, **self._cfg.env_kwargs)
        if is_gymnasium is None:
            is_gymnasium = isinstance(env, gymnasium.Env)
        self._env = env if is_gymnasium else LegacyGymAdapter(env)
        self._caller = caller
        self._seed_api = seed_api
        self._observation_space = to_gymnasium_space(self._env.observation_space)
        self._action_space = to_gymnasium_space(self._env.action_space)
        self._reward_space = spaces.Box(low=-np.inf, high=np.inf, shape=(1, ), dtype=np.float32)
        self._seed: Optional[int] = None
        self._dynamic_seed = True
        self._seed_pending = False
        self._episode_return = 0.0
        # The hot path: the wrapped env's own step, bound once.
        self.gym_step = self._env.step

    # --- gymnasium level (env managers) ---------------------------------------------------
    def gym_reset(self) -> Tuple[Any, dict]:
        """Reset, passing the seed on the first reset after `seed()` (or on every reset when
        `dynamic_seed=False`); otherwise the env's RNG carries on, which is deterministic too."""
        if self._seed is not None and (self._seed_pending or not self._dynamic_seed):
            self._seed_pending = False
            return self._env.reset(seed=self._seed)
        return self._env.reset()

    # --- DI-engine level --------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        obs, _ = self.gym_reset()
        self._episode_return = 0.0
        return np.asarray(obs, dtype=np.float32)

    def step(self, action: Any) -> BaseEnvTimestep:
        obs, reward, terminated, truncated, info = self._env.step(self._format_action(action))
        self._episode_return += float(reward)
        done = bool(terminated) or bool(truncated)
        info = dict(info) if info else {}
        info['terminated'] = bool(terminated)
        info['truncated'] = bool(truncated)
        if done:
            info['eval_episode_return'] = self._episode_return
        return BaseEnvTimestep(np.asarray(obs, dtype=np.float32), np.array([reward], dtype=np.float32), done, info)

    def _format_action(self, action: Any) -> Any:
        """DI-engine policies hand out one-element arrays for discrete actions."""
        space = self._action_space
        if isinstance(space, spaces.Discrete):
            return int(np.asarray(action).reshape(()))
        if isinstance(space, spaces.Box):
            return np.asarray(action, dtype=space.dtype).reshape(space.shape)
        return action

    def seed(self, seed: int, dynamic_seed: bool = True) -> None:
        if not self._seed_api:
            return
        self._seed = int(seed)
        self._dynamic_seed = bool(dynamic_seed)
        self._seed_pending = True
        self._action_space.seed(self._seed)

    def close(self) -> None:
        self._env.close()

    def render(self, *args: Any, **kwargs: Any) -> Any:
        return self._env.render(*args, **kwargs)

    @property
    def env(self) -> Any:
        """The wrapped env (gymnasium API; a legacy env sits inside a `LegacyGymAdapter`)."""
        return self._env

    @property
    def observation_space(self) -> Any:
        return self._observation_space

    @property
    def action_space(self) -> Any:
        return self._action_space

    @property
    def reward_space(self) -> Any:
        return self._reward_space

    def __repr__(self) -> str:
        return f'DingEnvWrapper({self._env!r})'
