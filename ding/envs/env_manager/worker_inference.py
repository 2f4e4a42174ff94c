"""rlpyt's "parallel-CPU" sampler: each worker holds a copy of the policy and runs whole
rollouts itself; only the transitions come back, through shared memory.

Why: when the policy is small and CPU-bound, batching it in the main process saves little,
while one round trip per step per worker costs ~50 us. Here a worker steps its envs and
acts on them for a whole rollout with no IPC at all; the main process only publishes
weights (`WeightBoard`) and reads `[env_num, steps]` arrays.

`WorkerInferenceSampler(env_fn, cfg)` (`env_manager.type='worker_inference'`) is a
subprocess manager (so it also serves an evaluator through `step_batch`) plus the
worker-actor protocol that `StepCollector` uses (docs/internals.md):
- `bind_actor(actor_fn, state_dict)`: `actor_fn` a picklable factory (cloudpickle: lambdas
  are fine) of an actor (`ding/policy/worker_actor.py`), `state_dict` its first weights;
- `collect_rollout(steps, kwargs, publish=None) -> (Batch, episodes)`: publish new weights
  when given, then `steps` steps of every env, acting with `actor(obs, **kwargs)`.
  A factory's `transition_columns` (a recurrent actor's `prev_state`,
  ding/policy/recurrent_worker_actor.py) become extra columns of the Batch.
Faults during a rollout are handled as in every manager (env_faults.py): a worker whose
env raises, that dies or that exceeds `step_timeout * steps` is restarted and logged (more
than `max_retry` failures of an env with no completed episode between stop the run); the
episodes its envs had in flight are dropped and counted in `dropped_episodes`, and its
envs' rows of this rollout are collected again from fresh episodes, so the Batch holds only
real transitions.
"""
import difflib
import weakref
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

import cloudpickle
import numpy as np

from ding.data.batch import Batch
from ding.envs.env_manager.inference_worker import InferenceEnvWorker
from ding.envs.env_manager.shared_arrays import SharedArrays
from ding.envs.env_manager import nonfinite
from ding.envs.env_manager.subprocess_env_manager import SubprocessEnvManagerV2
from ding.envs.env_manager.weight_board import WeightBoard
from ding.envs.env_manager.worker_pool import WorkerFailure
from ding.utils.registry import ENV_MANAGER_REGISTRY


@ENV_MANAGER_REGISTRY.register('worker_inference')
class WorkerInferenceSampler(SubprocessEnvManagerV2):
    """Takes the subprocess manager's keys. Collection through `collect_rollout` keeps its
    episode bookkeeping in the workers: do not mix it with `step_batch` on one instance
    (an evaluator gets its own instance)."""
    config = dict(type='worker_inference')
    worker_cls = InferenceEnvWorker

    def __init__(self, env_fn: Sequence[Callable[[], Any]], cfg: Optional[Mapping] = None) -> None:
        _check_keys(cfg or {}, self.default_config())
        self._actor_bytes: Optional[bytes] = None
        self._weights: Optional[Mapping[str, Any]] = None  # the latest bound / published state_dict
        self._board: Optional[WeightBoard] = None
        self._roll: Optional[SharedArrays] = None
        self._free_board = self._free_roll = _noop  # finalizers: free the memory at gc or exit at the latest
        self._actor_columns: Dict[str, tuple] = {}  # extra per-step columns the bound actor returns
        super().__init__(env_fn, cfg)

    # --- the worker-actor protocol ---------------------------------------------------------
    def bind_actor(self, actor_fn: Callable[[], Any], state_dict: Mapping[str, Any]) -> None:
        """Give every worker its actor (now if they run, else when they start); the keys and
        shapes of `state_dict` fix the layout of all later `publish`ed weights."""
        try:
            self._actor_bytes = cloudpickle.dumps(actor_fn)
        except Exception as err:  # noqa: BLE001 - re-raised with what to do
            raise TypeError(f'{type(self).__name__}.bind_actor: the actor factory cannot be pickled for the '
                            f'workers ({err}); pass a module-level class or a functools.partial') from err
        columns = _actor_columns(actor_fn)
        if columns != self._actor_columns:  # the rollout arrays get (or lose) the actor's columns
            self._free_roll()
            self._roll, self._free_roll = None, _noop
            self._actor_columns = columns
        self._weights = state_dict
        self._close_board()
        if self._handles:
            self._send_actor(self._handles)

    def publish(self, state_dict: Mapping[str, Any]) -> int:
        """New weights for the workers, picked up at their next rollout; returns the version."""
        if self._actor_bytes is None:
            raise RuntimeError(f'{type(self).__name__}: bind_actor(actor_fn, state_dict) before publishing weights')
        self._weights = state_dict
        if self._board is None:
            return self._open_board().version
        return self._board.publish(state_dict)

    @property
    def weights_version(self) -> int:
        """The weight board's version (2 per publish, the bound weights included); 0 before any."""
        return 0 if self._board is None else self._board.version

    def collect_rollout(self, steps: int, kwargs: Optional[Mapping[str, Any]] = None,
                        publish: Optional[Mapping[str, Any]] = None) -> Tuple[Batch, int]:
        """`steps` steps of every env, acting in the workers -> (env-major Batch of
        `env_num * steps` rows with the transition columns and `env_id`, episodes ended)."""
        if self._actor_bytes is None:
            raise RuntimeError(f'{type(self).__name__}: no actor bound; call bind_actor(actor_fn, state_dict) first')
        if not (bool(self._cfg.auto_reset) and np.isinf(float(self._cfg.episode_num))):
            raise ValueError(f'{type(self).__name__}.collect_rollout needs auto_reset=True and episode_num=inf '
                             f'(got {self._cfg.auto_reset}, {self._cfg.episode_num})')
        steps = int(steps)
        if steps <= 0:
            raise ValueError(f'{type(self).__name__}.collect_rollout needs steps > 0, got {steps}')
        if self._closed:
            self.launch()
        if publish is not None:
            self.publish(publish)
        self._ensure_capacity(steps)
        timeout = None if self._cfg.step_timeout is None else float(self._cfg.step_timeout) * steps
        episodes = self._rollout_all((steps, dict(kwargs or {})), timeout)
        n = self._env_num
        r = self._roll.arrays  # envs that completed an episode: their failures no longer count as in a row
        self._streaks.completed(np.flatnonzero((r['terminated'][:, :steps] | r['truncated'][:, :steps]).any(axis=1)))
        # np.array copies: the Batch must not alias shared memory that the next rollout rewrites
        cols = {k: np.array(v[:, :steps]).reshape((n * steps, ) + v.shape[2:]) for k, v in self._roll.arrays.items()}
        nonfinite.check_rollout(type(self).__name__, cols['next_obs'], cols['reward'], steps, self._streaks.offset)
        cols['done'] = cols.pop('terminated')
        cols['env_id'] = np.repeat(np.arange(n, dtype=np.int64), steps)
        self._obs = self._ready_shm.copy()  # `ready_obs`: what the next rollout starts from
        return Batch(cols), episodes

    def _rollout_all(self, payload: tuple, timeout: Optional[float]) -> int:
        """Run the rollout in every worker; a worker that fails is restarted (by `_command`)
        and runs its rollout again. Returns the episodes that ended."""
        pending, episodes = list(self._handles), 0
        while pending:
            results = self._command({h: ('rollout', payload) for h in pending}, timeout)
            failed = [h for h in pending if isinstance(results[h], WorkerFailure)]
            episodes += sum(int(results[h]) for h in pending if h not in failed)
            for h in failed:  # restarted with fresh episodes: the ones in flight are lost
                self.dropped_episodes += len(h.env_ids)
                self._lost.difference_update(h.env_ids)
            pending = failed
        return episodes

    # --- workers and shared memory ---------------------------------------------------------
    def _attach(self, handles: Sequence[Any]) -> None:
        super()._attach(handles)
        if self._actor_bytes is not None:  # a (re)started worker gets its actor at once
            self._send_actor(handles)

    def _send_actor(self, handles: Sequence[Any]) -> None:
        board = self._open_board()
        roll = None if self._roll is None else self._roll.handle
        requests = {h: ('set_actor', (self._actor_bytes, board.handle, roll, self._actor_seed(h))) for h in handles}
        self._command(requests, self._cfg.reset_timeout, restart=False)

    def _actor_seed(self, handle: Any) -> int:
        """The seed of the worker's first env (as `seed()` set it), else that env's id."""
        first = handle.env_ids[0]
        seed = self._seeds[first] if self._seeds is not None else None
        return int(first if seed is None else seed)

    def _open_board(self) -> WeightBoard:
        if self._board is None:
            self._board = WeightBoard(self._weights)
            self._free_board = weakref.finalize(self, self._board.close)
        return self._board

    def _close_board(self) -> None:
        self._free_board()
        self._board = None

    def _ensure_capacity(self, steps: int) -> None:
        """Rollout arrays of at least `steps` columns; grown (and re-sent) when a call needs more."""
        if self._roll is not None and self._roll.spec['reward'][0][1] >= steps:
            return
        free_old = self._free_roll
        self._roll = SharedArrays(self._rollout_spec(steps))
        self._free_roll = weakref.finalize(self, self._roll.close)
        self._command({h: ('attach_rollout', self._roll.handle) for h in self._handles}, self._cfg.reset_timeout,
                      restart=False)
        free_old()

    def _rollout_spec(self, steps: int) -> Dict[str, tuple]:
        n = self._env_num
        if 'next_obs' not in self._shm.spec:  # dict observations: one shared array per leaf (shared_obs.py)
            raise ValueError(f'{type(self).__name__} runs rollouts of array observations; for dict observations '
                             f'use the subprocess manager')
        obs_shape, obs_dtype = self._shm.spec['next_obs']
        act_shape, act_dtype = self._shm.spec['action']
        if act_shape[:1] != (n, ):
            raise ValueError(f'{type(self).__name__} needs an array action space (Discrete, Box, MultiDiscrete)')
        step = (n, steps)
        spec = dict(obs=(step + obs_shape[1:], obs_dtype), next_obs=(step + obs_shape[1:], obs_dtype),
                    action=(step + act_shape[1:], act_dtype), reward=(step, 'float32'), terminated=(step, 'bool'),
                    truncated=(step, 'bool'))
        for key, (shape, dtype) in self._actor_columns.items():
            spec[key] = (step + tuple(shape), dtype)
        return spec

    def close(self) -> None:
        """Stop the workers and free the shared memory; a bound actor stays bound (a relaunch
        starts from the latest weights)."""
        super().close()
        self._close_board()
        self._free_roll()
        self._roll = None


def _noop() -> None:
    pass


_ROLLOUT_KEYS = ('obs', 'next_obs', 'action', 'reward', 'terminated', 'truncated', 'done', 'env_id')


def _actor_columns(actor_fn: Any) -> Dict[str, tuple]:
    """The extra transition columns an actor factory declares (`transition_columns`, e.g. a
    recurrent actor's `prev_state`): {name: (per-env shape, dtype)}."""
    columns = {k: (tuple(shape), str(dtype)) for k, (shape, dtype) in
               dict(getattr(actor_fn, 'transition_columns', None) or {}).items()}
    clash = sorted(set(columns) & set(_ROLLOUT_KEYS))
    if clash:
        raise ValueError(f'WorkerInferenceSampler: the actor declares transition columns {clash}, which are the '
                         f"rollout's own columns {list(_ROLLOUT_KEYS)}")
    return columns


def _check_keys(cfg: Mapping, defaults: Mapping) -> None:
    unknown = sorted(set(cfg) - set(defaults) - {'cfg_type'})
    if unknown:
        key = unknown[0]
        close = difflib.get_close_matches(key, list(defaults), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ''
        raise KeyError(f"WorkerInferenceSampler: unknown config key '{key}'{hint} (keys: {sorted(defaults)})")
