"""`GroupedEnvManager`: several env managers seen as one, env ids laid end to end.

Why: a sampler that splits its envs into groups (the alternating sampler) must still look
like one manager to the code that only needs a manager, the evaluator above all. Group k
holds the global env ids `[offset_k, offset_k + group.env_num)`; every result is the
groups' results concatenated in that order, so it reads exactly like one manager's.
"""
from typing import Any, Callable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from ding.envs.env_manager import snapshot
from ding.data.batch import Batch
from ding.envs.env_manager.step_batch import EnvStepBatch
from ding.envs.env_manager.timestep_adapter import TimestepAdapter


class GroupedEnvManager(TimestepAdapter):
    """The manager surface of docs/internals.md over `groups` (managers with that surface).
    `step_batch` sends every group's step before waiting for any (when the groups offer
    `step_batch_async` / `step_batch_wait`), so the groups step side by side."""

    def __init__(self, groups: Sequence[Any]) -> None:
        self.groups = tuple(groups)
        sizes = [g.env_num for g in self.groups]
        self._offsets = tuple(int(x) for x in np.cumsum([0] + sizes[:-1]))
        self._env_num = int(sum(sizes))
        for group, lo in zip(self.groups, self._offsets):
            if hasattr(group, 'show_env_ids_from'):  # fault logs name envs by their global ids
                group.show_env_ids_from(lo)

    @property
    def envs_step_outside_gil(self) -> bool:
        return any(getattr(g, 'envs_step_outside_gil', True) for g in self.groups)

    def _spans(self) -> Iterator[Tuple[Any, int, int]]:
        """(group, first global id, one past its last global id) for each group."""
        for group, lo in zip(self.groups, self._offsets):
            yield group, lo, lo + group.env_num

    def _split_ids(self, per_env: Optional[Mapping[int, Any]]) -> List[dict]:
        """`{global env id: value}` -> one `{local env id: value}` per group."""
        parts: List[dict] = [{} for _ in self.groups]
        for i, value in (per_env or {}).items():
            i = int(i)
            if not 0 <= i < self._env_num:
                raise ValueError(f'env id {i} out of range for {self._env_num} envs')
            k = int(np.searchsorted(self._offsets, i, side='right')) - 1
            parts[k][i - self._offsets[k]] = value
        return parts

    # --- lifecycle ------------------------------------------------------------------------
    def seed(self, seed: Union[int, Sequence[int], Mapping[int, int]], dynamic_seed: bool = True) -> None:
        """As a single manager: an int gives env i the seed `seed + i`."""
        if isinstance(seed, Mapping):
            parts = self._split_ids(seed)
        elif isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != self._env_num:
                raise ValueError(f'got {len(seed)} seeds for {self._env_num} envs')
            parts = [list(seed[lo:hi]) for _, lo, hi in self._spans()]
        else:
            parts = [int(seed) + lo for _, lo, _ in self._spans()]
        for group, part in zip(self.groups, parts):
            group.seed(part, dynamic_seed)

    def launch(self, reset_param: Optional[Mapping[int, dict]] = None) -> None:
        if not self.closed:
            raise RuntimeError(f'{type(self).__name__} is already launched; close() it first or call reset()')
        for group, part in zip(self.groups, self._split_ids(reset_param)):
            if group.closed:  # a group may be up already if launching another one failed
                group.launch(part or None)

    def reset(self, reset_param: Optional[Mapping[int, dict]] = None) -> None:
        """Reset every env, or only the env ids keyed in `reset_param`; launches first if needed."""
        if self.closed:
            self.launch(reset_param)
            return
        for group, part in zip(self.groups, self._split_ids(reset_param)):
            if not reset_param:
                group.reset()
            elif part:
                group.reset(part)

    def close(self) -> None:
        """Close every group, even when closing one of them fails (the first error is raised)."""
        errors = []
        for group in self.groups:
            try:
                group.close()
            except Exception as err:  # noqa: BLE001 - still close the other groups
                errors.append(err)
        if errors:
            raise errors[0]

    def __enter__(self) -> 'GroupedEnvManager':
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return any(group.closed for group in self.groups)

    def _check_running(self) -> None:
        if self.closed:
            raise RuntimeError(f'{type(self).__name__} is not running: call launch() or reset() before stepping')

    # --- stepping -------------------------------------------------------------------------
    def step_batch(self, actions: Any) -> EnvStepBatch:
        """One step of every ready env (`actions` has `env_num` rows); a group whose envs all
        finished their episodes gives idle rows, as a single manager does for such envs."""
        self._check_running()
        if len(actions) != self._env_num:
            raise ValueError(f'step_batch needs {self._env_num} actions (one per env), got {len(actions)}')
        if self.done:
            raise RuntimeError(f'every env of {type(self).__name__} has finished its episodes; call reset()')
        waits: List[Callable[[], EnvStepBatch]] = []
        for group, lo, hi in self._spans():
            if group.done:
                waits.append(lambda g=group: _idle_rows(g))
            elif hasattr(group, 'step_batch_async'):
                group.step_batch_async(actions[lo:hi])
                waits.append(group.step_batch_wait)
            else:
                waits.append(lambda g=group, a=actions[lo:hi]: g.step_batch(a))
        return concat_step_batches([wait() for wait in waits])

    # --- state ----------------------------------------------------------------------------
    @property
    def ready_obs(self) -> np.ndarray:
        """`[env_num, *obs_shape]` (float32, uint8 frames kept), the groups' `ready_obs` one after another."""
        return concat_rows([group.ready_obs for group in self.groups])

    @property
    def ready_obs_id(self) -> List[int]:
        return [lo + i for group, lo, _ in self._spans() for i in group.ready_obs_id]

    _active_ids = ready_obs_id  # what the compatible `step` (TimestepAdapter) reads

    @property
    def done(self) -> bool:
        """True once no env of any group is ready."""
        return all(group.done for group in self.groups)

    @property
    def env_num(self) -> int:
        return self._env_num

    @property
    def observation_space(self) -> Any:
        return self.groups[0].observation_space

    @property
    def action_space(self) -> Any:
        return self.groups[0].action_space

    @property
    def reward_space(self) -> Any:
        return self.groups[0].reward_space

    @property
    def dropped_episodes(self) -> int:
        """Episodes lost to worker restarts, over all groups."""
        return sum(getattr(group, 'dropped_episodes', 0) for group in self.groups)

    @property
    def worker_restarts(self) -> int:
        """Restarts after env faults, over all groups."""
        return sum(getattr(group, 'worker_restarts', 0) for group in self.groups)

    @property
    def worker_pids(self) -> List[int]:
        return [pid for group in self.groups for pid in getattr(group, 'worker_pids', ())]

    def __repr__(self) -> str:
        state = 'closed' if self.closed else 'running'
        return f'{type(self).__name__}(env_num={self._env_num}, groups={len(self.groups)}, {state})'

    # --- snapshot (exact resume; ding/envs/env_manager/snapshot.py) ------------------------
    def state_dict(self) -> dict:
        """One snapshot per group (each group's own `state_dict()`)."""
        return snapshot.grouped_state_dict(self)

    def load_state_dict(self, state: dict) -> None:
        snapshot.load_grouped_state_dict(self, state)


def _idle_rows(group: Any) -> EnvStepBatch:
    """The rows of a group with no ready env: last observation, reward 0, no end."""
    n = group.env_num
    return EnvStepBatch(group.ready_obs, np.zeros(n, np.float32), np.zeros(n, bool), np.zeros(n, bool),
                        np.full(n, np.nan), np.zeros(n, np.int64), [{} for _ in range(n)])


def concat_step_batches(parts: Sequence[EnvStepBatch]) -> EnvStepBatch:
    """The groups' step results as one, env ids in group order."""
    arrays = [concat_rows([getattr(p, name) for p in parts]) for name in EnvStepBatch._fields[:-1]]
    return EnvStepBatch(*arrays, [info for p in parts for info in p.infos])


def concat_rows(parts: Sequence[Any]) -> Any:
    """The groups' rows in order: arrays, or nested Batches for dict observations."""
    if isinstance(parts[0], Batch):
        return Batch.cat(parts)
    return np.concatenate(parts)
