"""Env managers written against DI-engine's protocol, seen through our batched one.

Our collectors and evaluator step an env manager with `step_batch(actions [env_num])` and read
`ready_obs` as one stacked array. A manager written for DI-engine offers instead `ready_obs`
(`{env_id: obs}`, or a stacked array of the ready envs with `ready_obs_id`) and
`step(actions) -> timesteps` (`BaseEnvTimestep(obs, reward, done, info)` with `env_id`,
`info['eval_episode_return']` at an episode end) that steps only the env ids given and
resets finished envs itself. `as_batched_env(env)` is called once when a middleware is built:
a manager with `step_batch` is returned as is (the fast path), any other is wrapped in
`DIEngineEnvManagerAdapter`, which pays for the dicts here.

Single envs written against DI-engine's `BaseEnv` (reset/step/seed/close) need no adapter:
our managers take them directly (`BaseEnv.gym_step` reads their timesteps).
"""
import weakref
from typing import Any, Dict, List, Mapping, Optional

import numpy as np

from ding.envs.base_env import is_truncated, scalar_reward
from ding.envs.env_manager.step_batch import EnvStepBatch
from ding.utils.duck_typing import has_attr, optional_attr

# One adapter per wrapped manager: middlewares sharing a manager (DI-engine's `inferencer` and
# `rolloutor`) must share the observations the adapter keeps between its calls.
_ADAPTERS: 'weakref.WeakKeyDictionary' = weakref.WeakKeyDictionary()
_MISSING = object()


def as_batched_env(env: Any) -> Any:
    """`env` when it has our `step_batch`; a DI-engine-style manager wrapped; else TypeError."""
    if has_attr(env, 'step_batch'):
        return env
    try:
        return _ADAPTERS[env]
    except (KeyError, TypeError):  # TypeError: a manager that cannot be weakly referenced
        pass
    # looked up on the class (or instance dict): `ready_obs` may raise before launch
    missing = [name for name in ('step', 'ready_obs', 'env_num', 'launch', 'seed')
               if not (hasattr(type(env), name) or name in getattr(env, '__dict__', {}))]
    if missing:
        raise TypeError(f'{type(env).__name__} is no env manager: it lacks {missing} (an env manager has '
                        f'step_batch, or DI-engine\'s step/ready_obs/env_num/launch/seed); wrap single envs '
                        f'in BaseEnvManagerV2(env_fn=[...], cfg=cfg.env.manager)')
    adapter = DIEngineEnvManagerAdapter(env)
    try:
        _ADAPTERS[env] = adapter
    except TypeError:
        pass
    return adapter


class DIEngineEnvManagerAdapter:
    """`step_batch`/stacked `ready_obs` over a DI-engine-style manager (see the module doc).

    Envs that are not ready (a finished `episode_num`, an async manager still stepping them)
    are not stepped: their rows repeat their last observation with reward 0 and no end, as
    in our own managers. Everything else is the wrapped manager's own.
    """

    def __init__(self, manager: Any) -> None:
        self._manager = manager
        self._last_obs: Optional[Dict[int, Any]] = None
        self._episode_length = np.zeros(manager.env_num, dtype=np.int64)

    def __getattr__(self, name: str) -> Any:  # close, closed, reset, spaces, ... of the wrapped manager
        value = optional_attr(self._manager, name, _MISSING) if not name.startswith('__') else _MISSING
        if value is _MISSING:
            raise AttributeError(f'{type(self._manager).__name__} has no attribute {name!r}')
        return value

    @property
    def env_num(self) -> int:
        return self._manager.env_num

    def launch(self, *args: Any, **kwargs: Any) -> None:
        self._last_obs = None
        self._episode_length[:] = 0
        self._manager.launch(*args, **kwargs)

    def reset(self, *args: Any, **kwargs: Any) -> None:
        self._last_obs = None
        self._episode_length[:] = 0
        self._manager.reset(*args, **kwargs)

    def seed(self, seed: Any, dynamic_seed: Optional[bool] = None) -> None:
        if dynamic_seed is None:
            self._manager.seed(seed)
        else:
            self._manager.seed(seed, dynamic_seed)

    def _ready(self) -> Dict[int, Any]:
        """{env_id: obs} of the envs ready to act."""
        obs = self._manager.ready_obs
        self._by_id = isinstance(obs, Mapping)  # DI-engine V1 form: step takes {env_id: action}
        if self._by_id:
            return {int(i): o for i, o in obs.items()}
        ids = list(optional_attr(self._manager, 'ready_obs_id', range(len(obs))))
        return {int(i): obs[k] for k, i in enumerate(ids)}

    @property
    def ready_obs(self) -> np.ndarray:
        ready = self._ready()
        if self._last_obs is None:
            if len(ready) != self.env_num:
                raise RuntimeError(f'{type(self._manager).__name__}: {len(ready)} of {self.env_num} envs are ready '
                                   f'after launch; every env must give a first observation')
            self._last_obs = {}
        self._last_obs.update(ready)
        return _stack([self._last_obs[i] for i in range(self.env_num)])

    @property
    def ready_obs_id(self) -> List[int]:
        return sorted(self._ready())

    def step_batch(self, actions: Any) -> EnvStepBatch:
        """Step the ready envs with their rows of `actions`; one `EnvStepBatch` of all rows."""
        ready = sorted(self._ready())
        if self._by_id:
            timesteps = self._manager.step({i: actions[i] for i in ready})
        else:  # V2: a list in ready_obs_id order
            timesteps = self._manager.step([actions[i] for i in ready])
        if isinstance(timesteps, Mapping):
            timesteps = [_with_env_id(ts, i) for i, ts in timesteps.items()]
        n = self.env_num
        next_obs = [self._last_obs[i] for i in range(n)]
        reward = np.zeros(n, dtype=np.float32)
        terminated, truncated = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        episode_return, episode_length = np.full(n, np.nan), np.zeros(n, dtype=np.int64)
        infos: List[dict] = [{} for _ in range(n)]
        for ts in timesteps:
            i = int(ts.env_id)
            info = dict(ts.info or {})
            next_obs[i], reward[i], infos[i] = ts.obs, scalar_reward(ts.reward), info
            self._episode_length[i] += 1
            if bool(ts.done):
                truncated[i] = is_truncated(info)
                terminated[i] = not truncated[i]
                given = info.get('eval_episode_return')
                episode_return[i] = float(np.asarray(given).reshape(())) if given is not None else np.nan
                episode_length[i] = self._episode_length[i]
                self._episode_length[i] = 0
        self._last_obs.update({i: next_obs[i] for i in range(n) if not (terminated[i] or truncated[i])})
        return EnvStepBatch(_stack(next_obs), reward, terminated, truncated, episode_return,
                            episode_length, infos)

    def __repr__(self) -> str:
        return f'DIEngineEnvManagerAdapter({self._manager!r})'


def _stack(obs: List[Any]) -> np.ndarray:
    """float32 `[env_num, *obs_shape]` (a dict observation: a Batch of such columns)."""
    if isinstance(obs[0], Mapping):
        from ding.data.batch import Batch
        return Batch.from_rows(obs)
    return np.array([np.asarray(o) for o in obs], dtype=np.float32)


def _with_env_id(timestep: Any, env_id: int) -> Any:
    """A V1 manager keys its timesteps by env id; give each one `.env_id`."""
    if optional_attr(timestep, 'env_id') is None:
        from ding.envs.env_manager.step_batch import EnvTimestep
        obs, reward, done, info = timestep
        return EnvTimestep(obs, reward, done, info, env_id=env_id)
    return timestep
