"""`SubprocessEnvManagerV2`: envs stepped in worker processes, results in shared memory.

Why: an env that costs real CPU per step keeps one core busy in a serial manager; here
`worker_num` processes (default: one per core) each step `env_num / worker_num` envs while
the policy runs batched in this process. Per step and worker, one byte goes down a pipe
and (usually) zero bytes come back; observations, rewards and end flags are written in
place into shared arrays (`shared_arrays.py`), so nothing is pickled on the hot path.
Workers reset finished envs right away, so auto-reset costs no extra round trip.

Faults (env_faults.py, as in every manager): an env raising, a worker dying or a step
exceeding `step_timeout` restarts that worker, logged at WARNING; more than `max_retry`
failures of an env with no completed episode between stop the run. Its envs' episodes in
flight are dropped: their row in that step is flagged `info['dropped_episode']` (episode
return NaN; collectors and evaluators skip it), `dropped_episodes` counts them, and
collection goes on from a fresh reset.
"""
import multiprocessing
import os
import pickle
import sys
import weakref
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import cloudpickle
import numpy as np

from ding.envs.env_manager import snapshot
from ding.envs.env_manager.base_env_manager import BaseEnvManagerV2
from ding.envs.env_manager.shared_arrays import SharedArrays
from ding.envs.env_manager.shared_obs import copy_row, obs_arrays, obs_shape_of
from ding.envs.env_manager.step_batch import EnvTimestep
from ding.envs.env_manager.subprocess_layout import LaunchResources, RemoteEnv, action_kind, array_spec
from ding.envs.env_manager.subprocess_worker import STEP, STEP_PICKLED, EnvWorker
from ding.envs.env_manager.worker_pool import WorkerFailure, WorkerHandle, decode, gather
from ding.utils.registry import ENV_MANAGER_REGISTRY
from ding.config.schema import choice, positive_int


def forkserver_preload() -> List[str]:
    """Modules the fork server imports once, so that a worker (re)start is a fork, not ~1 s
    of imports: each child re-imports the user's main script, whose heavy imports (torch
    above all) are then already there. Only modules this process has imported are listed."""
    heavy = [name for name in ('numpy', 'gymnasium', 'torch') if name in sys.modules]
    return heavy + ['ding.envs.env_manager.subprocess_worker']


@ENV_MANAGER_REGISTRY.register('subprocess')
class SubprocessEnvManagerV2(BaseEnvManagerV2):
    """`SubprocessEnvManagerV2(env_fn=[callable, ...], cfg)`; same interface and same data
    as `BaseEnvManagerV2` for the same seeds. `env_fn` may hold lambdas (sent with
    cloudpickle)."""
    config = dict(
        type='subprocess',
        worker_num=positive_int(None),  # None: one worker per CPU core, at most one per env
        context=choice('forkserver', 'forkserver', 'spawn', 'fork'),  # multiprocessing start method: 'forkserver', 'spawn' or 'fork'
        max_retry=3,  # failures of one env in a row (no completed episode between) survived by restarts
        # seconds; a worker whose step takes longer is restarted with a WARNING (its episodes in
        # flight dropped). None waits forever (a worker dying is still noticed).
        step_timeout=60.0,
        reset_timeout=60.0,  # seconds, for start-up, seeding and resets
        shared_memory=True,  # accepted and ignored: array observations always go through shared memory
    )
    worker_cls = EnvWorker
    watches_envs = False  # its envs run in workers, timed out by step_timeout
    envs_step_outside_gil = True

    def __init__(self, env_fn: Sequence[Callable[[], Any]], cfg: Optional[Mapping] = None) -> None:
        self._handles: List[WorkerHandle] = []
        self._shm: Optional[SharedArrays] = None
        self._resources: Optional[LaunchResources] = None
        self._lost = set()  # env ids whose episode was lost to a restart, fresh obs waiting
        self._in_flight = None  # (actions, what _send_step returned) between async send and wait
        super().__init__(env_fn, cfg)

    # --- workers ------------------------------------------------------------------------
    def _worker_groups(self) -> List[List[int]]:
        count = self._cfg.worker_num or os.cpu_count() or 1
        count = max(1, min(int(count), self._env_num))
        return [g.tolist() for g in np.array_split(np.arange(self._env_num), count)]

    def _create_envs(self) -> List[RemoteEnv]:
        ctx = multiprocessing.get_context(self._cfg.context)
        if self._cfg.context == 'forkserver':
            ctx.set_forkserver_preload(forkserver_preload())
        self._handles = [
            WorkerHandle(ctx, cloudpickle.dumps([self._env_fn[i] for i in ids]), ids, self.worker_cls)
            for ids in self._worker_groups()
        ]
        self._resources = LaunchResources(self._handles)
        weakref.finalize(self, self._resources.close)  # also runs at interpreter exit
        try:
            return self._start_workers()
        except BaseException:
            self._resources.close()
            raise

    def _start_workers(self) -> List[RemoteEnv]:
        for h in self._handles:
            h.launch()
        replies = {h: decode(r) for h, r in gather(self._handles, self._cfg.reset_timeout).items()}
        failed = [r for r in replies.values() if isinstance(r, WorkerFailure)]
        if failed:
            raise RuntimeError(f'{type(self).__name__}: an env failed to start: {failed[0].text}')
        obs_space, act_space, rew_space = replies[self._handles[0]]
        self._shm = self._resources.shm = SharedArrays(array_spec(self._env_num, obs_space, act_space))
        self._bind_arrays()
        self._owner = np.repeat(np.arange(len(self._handles)), [len(h.env_ids) for h in self._handles])
        self._attach(self._handles)
        return [RemoteEnv(obs_space, act_space, rew_space) for _ in range(self._env_num)]

    def _bind_arrays(self) -> None:
        a = self._shm.arrays
        self._next_obs_shm, self._ready_shm = obs_arrays(a, 'next_obs'), obs_arrays(a, 'ready_obs')
        self._reward_shm = a['reward']
        self._term_shm, self._trunc_shm = a['terminated'], a['truncated']
        self._flag_shm, self._active_shm, self._action_shm = a['reset_flag'], a['active'], a['action']
        self._active_shm[:] = True
        self._active_dirty = False
        self._action_kind = action_kind(self._action_shm, self._env_num)

    def _attach(self, handles: Sequence[WorkerHandle]) -> None:
        eager = bool(self._cfg.auto_reset) and np.isinf(float(self._cfg.episode_num))
        payload = (self._shm.handle, obs_shape_of(self._shm.spec), self._action_kind, eager)
        self._command({h: ('attach', payload) for h in handles}, self._cfg.reset_timeout, restart=False)

    def _command(self, requests: Dict[WorkerHandle, tuple], timeout: Optional[float], restart: bool = True) -> Dict:
        """Send control commands to several workers at once; on a failure restart the worker
        (when `restart`) or raise."""
        failures = {h: h.send(pickle.dumps(req)) for h, req in requests.items()}
        live = [h for h, f in failures.items() if f is None]
        results = {h: decode(r) for h, r in gather(live, timeout).items()}
        results.update({h: f for h, f in failures.items() if f is not None})
        for h, r in results.items():
            if isinstance(r, WorkerFailure):
                if not restart:
                    raise RuntimeError(f'{type(self).__name__}: worker of envs {h.env_ids} failed: {r.text}')
                self._restart(h, r)
        return results

    def _restart(self, handle: WorkerHandle, failure: WorkerFailure) -> None:
        """Replace a failed worker by a fresh one with its envs seeded and reset; their
        episodes in flight are lost (reported at the next step)."""
        while True:
            # the env that raised when the worker names it, else all of the worker's envs
            failing = handle.env_ids if failure.env_id is None else [failure.env_id]
            self._streaks.failed(failing, failure.text, self.worker_restarts + 1,
                                 f'its worker ({self._streaks.label(handle.env_ids)})')
            handle.stop(graceful=False)
            self.worker_restarts += 1
            failure = self._revive(handle)
            if failure is None:
                self._lost.update(handle.env_ids)
                return

    def _revive(self, handle: WorkerHandle) -> Optional[WorkerFailure]:
        timeout = self._cfg.reset_timeout
        started = handle.start(timeout)
        if isinstance(started, WorkerFailure):
            return started
        self._attach([handle])
        steps = [('seed', self._seed_payload(handle))] if self._seeds is not None else []
        steps.append(('reset', [(j, None) for j in range(len(handle.env_ids))]))
        for req in steps:
            result = handle.request(*req, timeout)
            if isinstance(result, WorkerFailure):
                handle.stop(graceful=False)
                return result
        return None

    def _seed_payload(self, handle: WorkerHandle) -> List[tuple]:
        return [(j, self._seeds[i], self._dynamic_seed) for j, i in enumerate(handle.env_ids)
                if self._seeds[i] is not None]

    def _apply_seeds(self) -> None:
        self._command({h: ('seed', self._seed_payload(h)) for h in self._handles}, self._cfg.reset_timeout)

    # --- resets -------------------------------------------------------------------------
    def _reset_envs(self, env_ids: Sequence[int], params: Mapping[int, dict]) -> None:
        """Reset in all workers at once; the base class then reads the results."""
        env_ids = list(env_ids)
        requests: Dict[WorkerHandle, tuple] = {}
        for i in env_ids:
            if 0 <= i < self._env_num:
                h = self._handles[self._owner[i]]
                requests.setdefault(h, ('reset', []))[1].append((h.env_ids.index(i), params.get(i)))
        while requests:  # a restarted worker reset its envs without params: ask again
            results = self._command(requests, self._cfg.reset_timeout)
            requests = {h: req for h, req in requests.items() if isinstance(results[h], WorkerFailure)}
        super()._reset_envs(env_ids, params)

    def _reset_one(self, env_id: int, param: Optional[dict]) -> Any:
        """The reset obs the worker already wrote (eager auto-reset, `_reset_envs`, or a
        restart), else one round trip."""
        while not self._flag_shm[env_id]:
            h = self._handles[self._owner[env_id]]
            self._command({h: ('reset', [(h.env_ids.index(env_id), param)])}, self._cfg.reset_timeout)
        self._flag_shm[env_id] = 0
        self._lost.discard(env_id)
        return copy_row(self._ready_shm[env_id])

    # --- stepping -----------------------------------------------------------------------
    def step_batch_async(self, actions: Any) -> None:
        """Send a step to the workers and return at once; `step_batch_wait()` collects it.
        Lets a sampler run inference for other envs while these step."""
        if self._closed:
            self._check_running()
        if self._in_flight is not None:
            raise RuntimeError(f'{type(self).__name__}: a step is already in flight; call step_batch_wait() first')
        self._in_flight = (actions, self._send_step(self._split_actions(actions)))

    def step_batch_wait(self) -> Any:
        """The `EnvStepBatch` of the step sent by `step_batch_async`."""
        if self._in_flight is None:
            raise RuntimeError(f'{type(self).__name__}: no step in flight; call step_batch_async(actions) first')
        return self.step_batch(self._in_flight[0])

    def _step_envs(self, acts: List[Any]) -> tuple:
        if self._in_flight is not None:
            sent, self._in_flight = self._in_flight[1], None
        else:
            sent = self._send_step(acts)
        return self._receive_step(*sent)

    def _send_step(self, acts: List[Any]) -> tuple:
        if not self._active_ids:
            raise RuntimeError(f'every env of {type(self).__name__} has finished its episodes; call reset()')
        stepping = self._active
        if self._lost:
            stepping = stepping.copy()
            stepping[list(self._lost)] = False
        if self._active_dirty or not stepping.all():
            self._active_shm[:] = stepping
            self._active_dirty = not stepping.all()
        msg = self._write_actions(acts)
        busy = self._handles if stepping.all() else [h for h in self._handles if stepping[h.env_ids].any()]
        return stepping, {h: h.send(msg) for h in busy}

    def _receive_step(self, stepping: np.ndarray, sent: Dict[WorkerHandle, Any]) -> tuple:
        replies = gather([h for h, f in sent.items() if f is None], self._cfg.step_timeout)
        replies.update({h: f for h, f in sent.items() if f is not None})
        infos = [{} for _ in range(self._env_num)]
        for h, reply in replies.items():
            result = decode(reply)
            if isinstance(result, WorkerFailure):
                self._restart(h, result)
                for i in h.env_ids:
                    infos[i] = {'env_error': result.text}
                continue
            for i, info in (result or {}).items():
                infos[i] = info
        return self._read_results(stepping, infos)

    def _write_actions(self, acts: List[Any]) -> bytes:
        if self._action_kind == 'pickled':
            return STEP_PICKLED + pickle.dumps(acts)
        self._action_shm[:] = acts
        return STEP

    def _read_results(self, stepping: np.ndarray, infos: List[dict]) -> tuple:
        obs = self._next_obs_shm.copy()
        reward = self._reward_shm.copy()
        terminated = self._term_shm.copy()
        truncated = self._trunc_shm.copy()
        idle = ~stepping
        if idle.any():
            obs[idle] = self._obs[idle]
            reward[idle], terminated[idle], truncated[idle] = 0.0, False, False
        self._dropped_now = sorted(i for i in self._lost if self._active[i])
        for i in self._dropped_now:
            obs[i] = self._obs[i]
            reward[i], terminated[i], truncated[i] = 0.0, False, True
            infos[i]['dropped_episode'] = True
        self.dropped_episodes += len(self._dropped_now)
        return obs, reward, terminated, truncated, infos

    # --- lifecycle ----------------------------------------------------------------------
    def close(self) -> None:
        self._next_obs_shm = self._ready_shm = self._reward_shm = self._term_shm = None
        self._trunc_shm = self._flag_shm = self._active_shm = self._action_shm = None
        if self._resources is not None:
            self._resources.close()
        self._handles, self._shm, self._resources = [], None, None
        self._lost.clear()
        self._in_flight = None
        super().close()

    def ready_imgs(self, render_mode: str = 'rgb_array') -> Dict[int, Any]:
        """{env_id: frame [H, W, C]} of each active env, rendered in its worker."""
        self._check_running()
        replies = self._command({h: ('render', render_mode) for h in self._handles}, self._cfg.reset_timeout,
                                restart=False)
        frames = {env_id: frame for h, reply in replies.items() for env_id, frame in zip(h.env_ids, reply)}
        return {i: frames[i] for i in self.ready_obs_id}

    # --- snapshot (exact resume; ding/envs/env_manager/snapshot.py) ------------------------
    def state_dict(self) -> Dict[str, Any]:
        """The workers' envs (pickled in the workers, one per env) and the bookkeeping kept
        here; raises `EnvSnapshotError` when an env cannot be pickled."""
        return snapshot.subprocess_state_dict(self)

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Launch if needed and hand each worker its envs back (any `worker_num`)."""
        snapshot.load_subprocess_state_dict(self, state)

    @property
    def worker_num(self) -> int:
        return len(self._handles)

    @property
    def worker_pids(self) -> List[int]:
        return [h.process.pid for h in self._handles if h.process is not None]


# V1 managers: `SubprocessEnvManagerV2` (each env in a worker process) with V1's
# `step`: `step({env_id: action})` steps those envs and returns `{env_id: timestep}`, as
# `BaseEnvManager` does over `BaseEnvManagerV2`. Config type names stay ours ('subprocess' is the
# V2 manager that pipelines build); these classes are for code that names them.
class SyncSubprocessEnvManager(SubprocessEnvManagerV2):
    """Steps every env named in `step`'s actions together and returns when all have answered."""

    def step(self, actions: Union[Mapping[int, Any], Sequence[Any]]) -> Dict[int, EnvTimestep]:
        return {ts.env_id: ts for ts in super().step(actions)}


class AsyncSubprocessEnvManager(SyncSubprocessEnvManager):
    """An asynchronous manager may return the timesteps of whichever envs answer first
    (at least one). This one waits for every env it stepped, one of the allowed
    outcomes, so code written for an asynchronous manager (which handles any subset) runs unchanged."""
