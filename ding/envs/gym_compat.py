"""Adapt a legacy `gym` env (0.21 to 0.26 APIs) to the gymnasium API, so the rest of ding
deals with one API only.

Legacy differences handled: `reset()` returning `obs` or `(obs, info)`, `reset(seed=...)`
missing (then `env.seed(seed)`), `step()` returning `(obs, reward, done, info)` with
`info['TimeLimit.truncated']` or the 5-tuple, and `gym.spaces` instead of `gymnasium.spaces`.
"""
from typing import Any, Optional, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces


def to_gymnasium_space(space: Any) -> Any:
    """The gymnasium twin of a `gym.spaces` space (matched by class name); others pass through."""
    if space is None or isinstance(space, gymnasium.Space):
        return space
    kind = type(space).__name__
    if kind == 'Box':
        return spaces.Box(low=np.asarray(space.low), high=np.asarray(space.high), dtype=space.dtype)
    if kind == 'Discrete':
        return spaces.Discrete(int(space.n), start=int(getattr(space, 'start', 0)))
    if kind == 'MultiDiscrete':
        return spaces.MultiDiscrete(np.asarray(space.nvec))
    if kind == 'MultiBinary':
        return spaces.MultiBinary(space.n)
    if kind == 'Tuple':
        return spaces.Tuple([to_gymnasium_space(s) for s in space.spaces])
    if kind == 'Dict':
        return spaces.Dict({k: to_gymnasium_space(s) for k, s in space.spaces.items()})
    return space


class LegacyGymAdapter:
    """Presents `reset(seed=None, options=None) -> (obs, info)` and a 5-tuple `step` over an
    env written against an older gym API."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.observation_space = to_gymnasium_space(env.observation_space)
        self.action_space = to_gymnasium_space(env.action_space)

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None, **env_kwargs: Any) -> Tuple[Any, dict]:
        """`env_kwargs`: an env manager's reset parameters (`reset_param`, e.g. `stat=...`), passed to
        the env's own reset."""
        kwargs = dict(env_kwargs) if options is None else dict(env_kwargs, options=options)
        if seed is None:
            out = self.env.reset(**kwargs)
        else:
            try:
                out = self.env.reset(seed=seed, **kwargs)
            except TypeError:  # gym < 0.22: no seed argument
                self.env.seed(seed)
                out = self.env.reset(**kwargs)
        if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], dict):
            return out
        return out, {}

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, dict]:
        out = self.env.step(action)
        if len(out) == 5:
            return out
        obs, reward, done, info = out
        info = info if info is not None else {}
        truncated = bool(done) and bool(info.get('TimeLimit.truncated', False))
        # an env on the `BaseEnv` protocol (a BaseEnvTimestep) gives its reward as a one-element array
        reward = reward if isinstance(reward, (float, int)) else float(np.asarray(reward).reshape(()))
        return obs, reward, bool(done) and not truncated, truncated, info

    def close(self) -> None:
        self.env.close()

    def render(self, *args: Any, **kwargs: Any) -> Any:
        return self.env.render(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name == 'env':  # not set yet (unpickling): avoid recursing
            raise AttributeError(name)
        return getattr(self.env, name)
