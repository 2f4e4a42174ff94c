"""`GymVectorEnvManager` (`env_manager.type='gym_vector'`): the envs inside a
`gymnasium.vector.SyncVectorEnv` or `AsyncVectorEnv`, behind the ding manager interface.

Why: gymnasium's vector envs are the reference every user knows, and the baseline our own
managers are measured against; having them as a manager lets `auto` pick one when it is
the fastest, and lets a user compare modes by changing one config key.

The vector env runs with same-step auto-reset, so `next_obs` holds the terminal observation
(from `info['final_obs']`) and `ready_obs` the reset one, as in the serial manager; seeds
`s + i` go to the first reset and later resets continue each env's RNG, so the data equal
the serial manager's. Not supported (ValueError at construction or seeding): a finite
`episode_num`, `auto_reset=False`, `dynamic_seed=False`, and resetting only some envs.
"""
import math
from contextlib import suppress
from typing import Any, Callable, List, Mapping, Optional, Sequence

import gymnasium
import numpy as np
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv

from ding.envs.base_env import BaseEnv
from ding.envs.env_manager import snapshot
from ding.envs.env_manager.base_env_manager import BaseEnvManagerV2
from ding.envs.env_manager.env_faults import DROPPED, describe
from ding.envs.env_manager.subprocess_layout import RemoteEnv
from ding.utils.registry import ENV_MANAGER_REGISTRY


class BaseEnvAsGym(gymnasium.Env):
    """A ding `BaseEnv` seen as a gymnasium env, for envs that are not a wrapped one."""

    def __init__(self, env: BaseEnv) -> None:
        self.ding_env = env
        self.observation_space, self.action_space = env.observation_space, env.action_space

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        if seed is not None:
            self.ding_env.seed(seed, True)
        return self.ding_env.gym_reset()

    def step(self, action: Any):
        return self.ding_env.gym_step(action)

    def close(self) -> None:
        self.ding_env.close()


class GymEnvFn:
    """Picklable env factory for the vector env: the gymnasium env inside what `fn` makes."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn

    def __call__(self) -> gymnasium.Env:
        from ding.envs.ding_env_wrapper import DingEnvWrapper
        env = self.fn()
        if isinstance(env, DingEnvWrapper) and isinstance(env.env, gymnasium.Env):
            return env.env
        if isinstance(env, BaseEnv):
            return BaseEnvAsGym(env)
        return env


@ENV_MANAGER_REGISTRY.register('gym_vector')
class GymVectorEnvManager(BaseEnvManagerV2):
    """`GymVectorEnvManager(env_fn=[callable, ...], cfg)`; `cfg.vector` picks 'sync' or
    'async' (worker processes, gymnasium's shared memory when `shared_memory`)."""
    steps_env_subsets = False  # the vector env steps all its envs together
    watches_envs = False  # its own `_step_envs`: the watchdog would have nothing to look at
    config = dict(type='gym_vector', vector='async', shared_memory=True, context=None)

    @property
    def envs_step_outside_gil(self) -> bool:
        return self._cfg.vector == 'async'  # gymnasium's AsyncVectorEnv: worker processes

    def __init__(self, env_fn: Sequence[Callable[[], Any]], cfg: Optional[Mapping] = None) -> None:
        self._vec = None
        self._reset_obs: Optional[np.ndarray] = None
        self._seed_pending = False
        super().__init__(env_fn, cfg)
        if not self._auto_reset or not math.isinf(self._episode_num):
            self.close()
            raise ValueError(f'{type(self).__name__} always auto-resets: it needs auto_reset=True and an infinite '
                             f'episode_num (got {self._cfg.auto_reset}, {self._cfg.episode_num}); use base_v2 '
                             f'or subprocess')
        if self._cfg.nonfinite == 'warn':  # dropping one env's episode needs a reset of that env alone
            self.close()
            raise ValueError(f"{type(self).__name__} cannot reset one env alone, so it cannot drop one episode: "
                             f"env.manager.nonfinite='warn' needs base_v2, subprocess or alternating")
        if self._cfg.vector not in ('sync', 'async'):
            self.close()
            raise ValueError(f"{type(self).__name__}: cfg.vector must be 'sync' or 'async', got {self._cfg.vector!r}")

    def _create_envs(self) -> List[RemoteEnv]:
        fns = [GymEnvFn(fn) for fn in self._env_fn]
        if self._cfg.vector == 'sync':
            self._vec = SyncVectorEnv(fns, autoreset_mode=AutoresetMode.SAME_STEP)
        else:
            self._vec = AsyncVectorEnv(fns, shared_memory=bool(self._cfg.shared_memory), context=self._cfg.context,
                                       autoreset_mode=AutoresetMode.SAME_STEP)
        return [_vector_slot(self._vec) for _ in range(self._env_num)]

    def _apply_seeds(self) -> None:
        if not self._dynamic_seed:
            raise ValueError(f'{type(self).__name__} cannot reseed every reset (dynamic_seed=False): the vector env '
                             f'resets envs itself; use base_v2 or subprocess for repeatable evaluation')
        self._seed_pending = True

    def _reset_envs(self, env_ids: Sequence[int], params: Mapping[int, dict]) -> None:
        env_ids = list(env_ids)
        if sorted(env_ids) != list(range(self._env_num)) or any(params.values()):
            raise NotImplementedError(f'{type(self).__name__} resets all envs at once, without reset params')
        seeds = self._seeds if self._seed_pending else None
        self._seed_pending = False  # later resets continue each env's RNG (dynamic seeding)
        try:
            self._reset_obs = self._vector_reset(seeds)
        except Exception as err:  # noqa: BLE001 - an env fault (env_faults.py)
            self._rebuild_vector(describe(err))
        super()._reset_envs(env_ids, params)

    def _vector_reset(self, seeds: Optional[List[int]]) -> Any:
        return env_rows(self._vec.reset(seed=seeds)[0], self._env_num)

    def _reset_one(self, env_id: int, param: Optional[dict]) -> Any:
        return self._reset_obs[env_id]

    def _step_envs(self, acts: List[Any]) -> tuple:
        try:
            obs, reward, terminated, truncated, info = self._vec.step(np.asarray(acts))
        except Exception as err:  # noqa: BLE001 - an env fault (env_faults.py)
            return self._restart_vector(describe(err))
        infos = [{} for _ in range(self._env_num)]
        obs = env_rows(obs, self._env_num)
        ended = terminated | truncated
        if ended.any():
            self._reset_obs = obs
            obs = np.array(obs) if isinstance(obs, np.ndarray) else list(obs)  # a copy; stack_obs converts
            final = info['final_obs']
            for i in np.flatnonzero(ended):
                obs[i] = final[i]
        return obs, reward, terminated, truncated, infos

    def _restart_vector(self, text: str) -> tuple:
        """A sub-env raised in a step: every env's episode in flight is dropped (their rows
        flagged, as the base class's rows of a dropped episode)."""
        text = self._rebuild_vector(text)
        n = self._env_num
        self._dropped_now = list(range(n))
        self.dropped_episodes += n
        infos = [{DROPPED: True, 'env_error': text} for _ in range(n)]
        return self._obs.copy(), np.zeros(n), np.zeros(n, dtype=bool), np.ones(n, dtype=bool), infos

    def _rebuild_vector(self, text: str) -> str:
        """gymnasium cannot restart one sub-env, so the whole vector env is rebuilt and reset
        with the seeds last given; returns the last failure's text. The failure counts against
        the env that raised (AsyncVectorEnv tells which: its pipe is gone), else all envs."""
        pipes = getattr(self._vec, 'parent_pipes', None) or []
        failing = [i for i, pipe in enumerate(pipes) if pipe is None] or list(range(self._env_num))
        while True:
            self._streaks.failed(failing, text, self.worker_restarts + 1,
                                 f'the vector env ({self._streaks.label(range(self._env_num))})')
            self.worker_restarts += 1
            with suppress(Exception):  # a broken vector env may fail to close; it is replaced
                self._vec.close(terminate=True)
            try:
                self._envs = self._create_envs()
                self._reset_obs = self._vector_reset(self._seeds)
                break
            except Exception as err:  # noqa: BLE001 - the rebuilt vector env failed too
                text, failing = describe(err), list(range(self._env_num))
        return text

    @property
    def worker_pids(self) -> List[int]:
        """The AsyncVectorEnv's worker processes (none for 'sync')."""
        return [p.pid for p in getattr(self._vec, 'processes', [])]

    def close(self) -> None:
        if self._vec is not None:
            self._vec.close()
            self._vec = None
        super().close()

    # --- snapshot (exact resume; ding/envs/env_manager/snapshot.py) ------------------------
    def state_dict(self) -> dict:
        """vector='sync': the whole SyncVectorEnv pickled with the bookkeeping; 'async' raises
        `EnvSnapshotError` (gymnasium's workers cannot hand their envs out)."""
        return snapshot.gym_vector_state_dict(self)

    def load_state_dict(self, state: dict) -> None:
        snapshot.load_gym_vector_state_dict(self, state, _vector_slot)


def env_rows(obs: Any, n: int) -> Any:
    """The vector env's observations row by row: an array as it is; dict observations, which
    gymnasium stacks as `{key: [n, ...]}`, as a list of n per-env dicts (stacked by the base class)."""
    if not isinstance(obs, Mapping):
        return obs
    columns = {key: env_rows(value, n) for key, value in obs.items()}
    return [{key: column[i] for key, column in columns.items()} for i in range(n)]


def _vector_slot(vec: Any) -> RemoteEnv:
    """What the base class sees of one env inside the vector env: its spaces."""
    return RemoteEnv(vec.single_observation_space, vec.single_action_space, None)
