"""`EnvPoolEnvManager` (`env_manager.type='envpool'`): envs stepped by EnvPool's C++ thread
pool, for the Atari / MuJoCo / classic-control tasks it ships.

Why: for the envs it covers, EnvPool steps a batch with no Python per env at all, which no
process-based manager can match. It is optional: the `envpool` package is imported when a
manager is built, with an ImportError naming the extra otherwise.

EnvPool builds envs from a task id (`cfg.env_id`), not from `env_fn` (only its length, the
env count, is used). It auto-resets an env on the step *after* its episode ends; this
manager resets the finished envs right away instead (`reset(env_id)`), so `next_obs` is the
terminal observation and `ready_obs` the reset one, as with every other manager. Seeds are
fixed when the pool is built, so `seed()` rebuilds it at the next reset.
Not covered by this checkout's tests (EnvPool is not installed here).
"""
from typing import Any, Callable, List, Mapping, Optional, Sequence

import numpy as np

from ding.envs.env_manager.gym_vector_env_manager import GymVectorEnvManager
from ding.envs.env_manager.snapshot import EnvSnapshotError
from ding.envs.env_manager.subprocess_layout import RemoteEnv
from ding.utils.registry import ENV_MANAGER_REGISTRY


def import_envpool() -> Any:
    try:
        import envpool
    except ImportError as err:
        raise ImportError('env_manager.type="envpool" needs the optional EnvPool package: '
                          'pip install envpool (the "envpool" extra)') from err
    return envpool


@ENV_MANAGER_REGISTRY.register('env_pool')  # DI-engine's name
@ENV_MANAGER_REGISTRY.register('envpool')
class EnvPoolEnvManager(GymVectorEnvManager):
    """`EnvPoolEnvManager(env_fn, cfg)` with `cfg.env_id` an EnvPool task id (e.g. 'CartPole-v1');
    `cfg.env_num` may replace `env_fn`."""
    config = dict(type='envpool', env_id=None, env_num=None, num_threads=0, envpool_kwargs=dict())
    envs_step_outside_gil = True  # EnvPool's C++ threads

    def __init__(self, env_fn: Optional[Sequence[Callable[[], Any]]] = None, cfg: Optional[Mapping] = None) -> None:
        self._envpool = import_envpool()
        cfg = dict(cfg or {})
        if not cfg.get('env_id'):
            raise ValueError('EnvPoolEnvManager needs cfg.env_id, the EnvPool task id (e.g. "CartPole-v1")')
        if not env_fn:
            env_fn = [None] * int(cfg.get('env_num') or 0)
        self._pool_seed = 0
        super().__init__(env_fn, cfg)

    def _create_envs(self) -> List[RemoteEnv]:
        self._vec = self._envpool.make_gymnasium(self._cfg.env_id, num_envs=self._env_num, seed=self._pool_seed,
                                                 num_threads=int(self._cfg.num_threads), **self._cfg.envpool_kwargs)
        # EnvPool names its per-env spaces like a single env's
        return [RemoteEnv(self._vec.observation_space, self._vec.action_space, None) for _ in range(self._env_num)]

    def _vector_reset(self, seeds: Optional[List[int]]) -> np.ndarray:
        if seeds is not None and seeds[0] is not None:
            self._pool_seed = int(seeds[0])  # EnvPool seeds env i with seed + i itself
            self._vec.close()
            self._create_envs()
        return self._vec.reset()[0]

    def _step_envs(self, acts: List[Any]) -> tuple:
        obs, reward, terminated, truncated, _ = self._vec.step(np.asarray(acts))
        ended = np.flatnonzero(terminated | truncated)
        if len(ended):
            reset_obs = np.array(obs)  # a copy in the dtype stack_obs takes it in
            reset_obs[ended] = self._vec.reset(ended.astype(np.int32))[0]
            self._reset_obs = reset_obs
        return obs, reward, terminated, truncated, [{} for _ in range(self._env_num)]

    def state_dict(self) -> dict:
        raise EnvSnapshotError(f'{type(self).__name__}: EnvPool keeps its envs in C++ and cannot hand them out, so '
                               f'a resumed run starts fresh episodes')

    def load_state_dict(self, state: dict) -> None:
        raise EnvSnapshotError(f'{type(self).__name__} cannot load env snapshots (taken by {state.get("manager")})')


PoolEnvManager = EnvPoolEnvManager  # DI-engine's name for it
