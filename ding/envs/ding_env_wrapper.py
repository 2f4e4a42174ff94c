"""`DingEnvWrapper`: a gymnasium (or legacy gym) env seen as a ding `BaseEnv`.

Why it exists: pipelines wrap `gym.make(id)` in it and expect
`reset() -> obs` (float32 array; uint8 pixels stay uint8) and `step() -> BaseEnvTimestep` with
`info['eval_episode_return']` at the end of an episode. Env managers instead call
`gym_step`, which is the wrapped env's own `step` (no per-step work added): the manager
converts observations to float32 once per batch while stacking them, and keeps episode
returns in its own arrays.

Terminated and truncated stay distinct: `timestep.done = terminated or truncated`, and
`info['terminated']` / `info['truncated']` say which one happened, so a learner keeps
bootstrapping through a time-limit truncation.

`cfg.env_wrapper` ('default', 'atari_default', ... or a list of wrapper specs /
callables, see ding/envs/env_wrappers/build.py) wraps the env when it is built. Wrappers see
gymnasium's API: a legacy env (old `reset()`/4-tuple `step`) is adapted first, and the
result of user callables is adapted back if they speak the old API. With `caller='evaluator'`
(or `cfg.is_train=False`) normalisation wrappers are frozen. The trailing
`eval_episode_return` of a chain is not stacked on: this class and the env managers sum the
same rewards already, so the hot path stays the env's own `step`.
"""
import copy
import inspect
from typing import Any, List, Optional, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces

from ding.config.schema import key
from ding.envs.base_env import BaseEnv, BaseEnvTimestep
from ding.envs.env_manager.obs_stack import obs_dtype
from ding.envs.gym_compat import LegacyGymAdapter, to_gymnasium_space


class DingEnvWrapper(BaseEnv):
    """`DingEnvWrapper(env=None, cfg=None)`: wrap `env`, or `gymnasium.make(cfg.env_id,
    **cfg.env_kwargs)` when `env` is None."""
    # env_wrapper: a default chain's name, or a list of wrapper specs / callables (env_wrappers/build.py)
    config = dict(env_id=None, env_kwargs=dict(), env_wrapper=key('default', 'any'), act_scale=False, rew_clip=False)

    def __init__(self, env: Any = None, cfg: Any = None, seed_api: bool = True, caller: str = 'collector',
                 is_gymnasium: Optional[bool] = None) -> None:
        super().__init__(cfg)
        if env is None:
            if not self._cfg.env_id:
                raise ValueError('DingEnvWrapper needs an env or cfg.env_id (a gymnasium id such as "CartPole-v1")')
            env = gymnasium.make(self._cfg.env_id, **self._cfg.env_kwargs)
        if is_gymnasium is None:
            is_gymnasium = isinstance(env, gymnasium.Env) and not _legacy_reset(env)
        self._raw_env = env
        self._caller = 'evaluator' if self._cfg.get('is_train') is False else caller
        specs = self._wrapper_specs()
        if specs:
            self._env = _wrap(env if is_gymnasium else GymnasiumApiShim(env), specs, self._caller)
        elif is_gymnasium:
            self._env = env
        else:  # a gymnasium.Env subclass on the old API may lack the old `seed()` too: the shim copes
            self._env = GymnasiumApiShim(env) if isinstance(env, gymnasium.Env) else LegacyGymAdapter(env)
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

    def _wrapper_specs(self) -> List[Any]:
        from ding.envs.env_wrappers.build import is_episode_return_spec, wrapper_specs
        from ding.envs.env_wrappers.step_wrappers import ActionScaleWrapper, RewardFloorWrapper
        specs = wrapper_specs(self._cfg.env_wrapper, self._cfg.env_id, 'collector' if self._caller != 'evaluator'
                              else 'evaluator')
        while specs and is_episode_return_spec(specs[-1]):  # summed here and by the managers already
            specs.pop()
        if self._cfg.act_scale:  # the policy's [-1, 1] actions are scaled last, before the env
            specs.append(ActionScaleWrapper)
        if self._cfg.rew_clip:
            specs.append(RewardFloorWrapper)
        return specs

    # --- gymnasium level (env managers) ---------------------------------------------------
    def gym_reset(self, **env_kwargs: Any) -> Tuple[Any, dict]:
        """Reset, passing the seed on the first reset after `seed()` (or on every reset when
        `dynamic_seed=False`); otherwise the env's RNG carries on, which is deterministic too.
        `env_kwargs` go to the wrapped env's reset (gymnasium's `options`, or the reset parameters
        of a `BaseEnv`-style env, e.g. `stat=...`)."""
        if self._seed is not None and (self._seed_pending or not self._dynamic_seed):
            self._seed_pending = False
            return self._env.reset(seed=self._seed, **env_kwargs)
        return self._env.reset(**env_kwargs)

    # --- timestep level -----------------------------------------------------------------------
    def reset(self, **env_kwargs: Any) -> np.ndarray:
        """The first obs; `env_kwargs` (an env manager's `reset_param`) go to the
        wrapped env's reset."""
        obs, _ = self.gym_reset(**env_kwargs)
        self._episode_return = 0.0
        return np.asarray(obs, dtype=obs_dtype(obs))  # float32; uint8 pixels stay uint8

    def step(self, action: Any) -> BaseEnvTimestep:
        obs, reward, terminated, truncated, info = self._env.step(self._format_action(action))
        self._episode_return += float(reward)
        done = bool(terminated) or bool(truncated)
        info = dict(info or {}, terminated=bool(terminated), truncated=bool(truncated))
        if done and 'eval_episode_return' not in info:  # a wrapper's (e.g. raw returns under reward_norm) wins
            info['eval_episode_return'] = self._episode_return
        return BaseEnvTimestep(np.asarray(obs, dtype=obs_dtype(obs)), np.array([reward], dtype=np.float32), done, info)

    def _format_action(self, action: Any) -> Any:
        """Policies hand out one-element arrays for discrete actions."""
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

    def clone(self, caller: str = 'collector') -> 'DingEnvWrapper':
        """A new wrapper around a copy of the original env, wrapped anew for `caller`."""
        return DingEnvWrapper(copy.deepcopy(self._raw_env), self._cfg, self._seed_api, caller)

    @staticmethod
    def create_collector_env_cfg(cfg: Any) -> List[Any]:
        return [dict(cfg, is_train=True) for _ in range(int(cfg.get('collector_env_num', 1)))]

    @staticmethod
    def create_evaluator_env_cfg(cfg: Any) -> List[Any]:
        return [dict(cfg, is_train=False) for _ in range(int(cfg.get('evaluator_env_num', 1)))]

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


def _legacy_reset(env: Any) -> bool:
    """A gymnasium.Env subclass still written against the old API (`reset(self)` with no
    seed): many older examples subclass `gym.Env` that way."""
    try:
        params = inspect.signature(env.reset).parameters.values()
    except (TypeError, ValueError):
        return False
    return not any(p.name == 'seed' or p.kind == p.VAR_KEYWORD for p in params)


class GymnasiumApiShim(LegacyGymAdapter, gymnasium.Env):
    """A legacy env as a `gymnasium.Env`, so gymnasium wrappers can wrap it."""

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None, **env_kwargs: Any) -> Tuple[Any, dict]:
        if seed is not None and _legacy_reset(self.env) and not callable(getattr(self.env, 'seed', None)):
            seed = None  # an env with no way to take a seed (it draws from numpy's global RNG)
        return super().reset(seed=seed, options=options, **env_kwargs)

    @property
    def unwrapped(self) -> Any:
        return getattr(self.env, 'unwrapped', self.env)


def _wrap(env: Any, specs: List[Any], caller: str) -> Any:
    from ding.envs.env_wrappers.build import apply_wrappers
    from ding.envs.env_wrappers.norm_wrappers import _StatsWrapper
    wrapped = apply_wrappers(env, specs)
    layer = wrapped
    while layer is not None:
        if caller == 'evaluator' and isinstance(layer, _StatsWrapper):
            layer.frozen = True
        layer = getattr(layer, 'env', None) if isinstance(layer, (gymnasium.Wrapper, LegacyGymAdapter)) else None
    if any(callable(s) and not isinstance(s, type) for s in specs) or not isinstance(wrapped, gymnasium.Wrapper):
        return LegacyGymAdapter(wrapped)  # a user callable may return an old-API wrapper: adapt either API
    return wrapped
