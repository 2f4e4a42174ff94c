"""The exchangers of a distributed run (what `ContextExchanger`, `ModelExchanger`,
`PeriodicalModelExchanger` and `Barrier` in ding/framework/middleware/distributer.py become when
`task.router` is active).

Data crosses nodes here only, as Ray object-store references: a collector puts its
trajectories (a Batch of numpy columns) once and sends the reference; the learner `ray.get`s
them zero-copy on one machine. Each collector has at most `max_inflight` batches the learner
has not consumed yet: past that it waits for the learner's acknowledgement, so a fast
collector can neither flood the learner's memory nor act on weights more than a few versions
old. The learner sums the collectors' `env_step`/`env_episode` increments and sends `train_iter` (and the acks)
back. The learner (rank 0 with DDP) puts its weights once per version; receivers load only the
newest. A `storage_loader`/`model_loader` (FileStorageLoader, FileModelLoader) replaces the
object store by files.
"""
import logging
import threading
import time
import uuid
import warnings
from typing import Any, Dict, List, Optional

import numpy as np

from ding.framework.contract import contract
from ding.framework.middleware import _common
from ding.framework.roles import Role

logger = logging.getLogger('ding.distributed')


def _ray() -> Any:
    import ray
    return ray


class _Waiter:
    """A condition variable whose waits end early when the task finishes."""

    def __init__(self) -> None:
        self.cv = threading.Condition()

    def wait_until(self, predicate: Any, timeout: float, what: str) -> bool:
        task = _common.current_task()
        deadline = time.monotonic() + timeout
        warned = False
        with self.cv:
            while not predicate():
                if task.finish:
                    return False
                now = time.monotonic()
                if now >= deadline:
                    if not warned:
                        logger.warning('node %s still waiting for %s after %.0f s', task.router.node_id, what, timeout)
                        warned = True
                    deadline = now + timeout
                self.cv.wait(0.05)
        return True


def _fetch(item: Any, timeout: float) -> Any:
    """An object-store reference's value (anything else as is) within `timeout` seconds, else
    TimeoutError: Ray may wait for ever on an object whose owner's machine went away mid-transfer."""
    ray = _ray()
    if not isinstance(item, ray.ObjectRef):
        return item
    try:
        return ray.get(item, timeout=timeout)
    except ray.exceptions.GetTimeoutError:
        raise TimeoutError(f'not fetched within {timeout:g} s') from None


def _ignore(*args: Any, **kwargs: Any) -> None:
    pass


class ContextExchanger:
    EVENT = 'context_exchanger_{role}'

    def __init__(self, skip_n_iter: int = 1, storage_loader: Any = None, max_inflight: int = 2,
                 wait_timeout: float = 60.0, learner: Optional[int] = None, load_timeout: float = 30.0) -> None:
        task = _common.current_task()
        self._roles = set(task.roles)
        self._node = task.router.node_id
        self._skip_n_iter, self._storage_loader = skip_n_iter, storage_loader
        self._max_inflight, self._wait_timeout = max(1, int(max_inflight)), wait_timeout
        self._load_timeout = float(load_timeout)
        self._waiter = _Waiter()
        self._collector_payloads: List[Dict[str, Any]] = []  # learner: not merged yet
        self._learner_state: Optional[Dict[str, Any]] = None  # collector/evaluator: newest from the learner
        self._increments = {'env_step': 0, 'env_episode': 0}  # evaluator: from the collectors
        # several learners (DDP): a collector sends its data to one (`learner`); each learner
        # still counts every collector's steps, so env_step is the run's total on every rank
        self._to = learner
        self._others = {'env_step': 0, 'env_episode': 0}  # learner: steps whose data went elsewhere
        self._fresh = False
        self._sent_seq = 0
        self._acked = 0
        self._consumed: Dict[int, tuple] = {}  # learner: node -> (incarnation, last seq merged)
        self._incarnation = uuid.uuid4().hex[:12]  # a restarted collector counts its seq afresh
        self._last: Optional[Dict[str, int]] = None  # collector: counters sent so far (from its first step's)
        self.lost_batches = 0
        for role in Role:  # peers of the same role (two collectors in a mesh) are heard and ignored at once,
            # so their object-store references are released instead of held for a handler
            task.on(self.EVENT.format(role=role.value), self._put if role not in self._roles else _ignore)
        # what `_merge` writes on this node's role, so that async_mode's one-writer check sees
        # no clash with the node's own counters (a learner's train_iter, a collector's env_step)
        if self.is_learner:
            fields = ('trajectories', 'trajectory_end_idx', 'episodes', 'env_step', 'env_episode')
        else:
            fields = ('train_iter', ) if self.is_collector else ('train_iter', 'env_step', 'env_episode')
        contract(self, writes=fields, name='ContextExchanger')  # reads them after the step

    @property
    def is_learner(self) -> bool:
        return Role.LEARNER in self._roles

    @property
    def is_collector(self) -> bool:
        return Role.COLLECTOR in self._roles

    def __call__(self, ctx: Any) -> Any:
        if self._last is None and self.is_collector:  # a resumed run's collector starts from its share
            self._last = {'env_step': int(ctx.env_step), 'env_episode': int(ctx.env_episode)}
        self._merge(ctx)
        yield
        self._send(ctx)

    # ---- receiving ----------------------------------------------------------------------------
    def _put(self, payload: Dict[str, Any]) -> None:
        with self._waiter.cv:
            if 'seq' in payload:  # from a collector
                if self.is_learner and payload.get('to', self._node) != self._node:
                    for key in self._others:  # its data (a reference) is dropped here unread
                        self._others[key] += int(payload.get(key, 0))
                elif self.is_learner:
                    self._collector_payloads.append(payload)
                elif not self.is_collector:
                    for key in self._increments:
                        self._increments[key] += int(payload.get(key, 0))
            if 'train_iter' in payload and not self.is_learner:
                self._learner_state = payload
                acked = payload.get('acked', {}).get(self._node)
                if acked is not None and acked[0] == self._incarnation:
                    self._acked = int(acked[1])
            self._fresh = True
            self._waiter.cv.notify_all()

    def _merge(self, ctx: Any) -> None:
        if self.is_learner:  # until some data arrived (every batch merged may have been lost)
            with self._waiter.cv:
                others, self._others = self._others, {k: 0 for k in self._others}
            for key, value in others.items():
                setattr(ctx, key, getattr(ctx, key) + value)
            while ctx.trajectories is None and ctx.episodes is None:
                if not self._waiter.wait_until(lambda: self._collector_payloads, self._wait_timeout, 'collected data'):
                    return
                with self._waiter.cv:
                    payloads, self._collector_payloads = self._collector_payloads, []
                self._merge_collected(ctx, payloads)
            return
        if self.is_collector:
            if ctx.total_step >= self._skip_n_iter:
                self._waiter.wait_until(lambda: self._sent_seq - self._acked < self._max_inflight, self._wait_timeout,
                                        'the learner to consume data')
        elif ctx.total_step >= self._skip_n_iter:  # an evaluator: act on news only, do not spin
            self._waiter.wait_until(lambda: self._fresh, self._wait_timeout, 'news from the learner')
        with self._waiter.cv:
            state, self._fresh = self._learner_state, False
            increments, self._increments = self._increments, {k: 0 for k in self._increments}
        if state is not None:
            ctx.train_iter = int(state['train_iter'])
        if not self.is_collector:
            for key, value in increments.items():
                setattr(ctx, key, getattr(ctx, key) + value)

    def _merge_collected(self, ctx: Any, payloads: List[Dict[str, Any]]) -> None:
        from ding.data.batch import Batch
        batches, end_idx, episodes = [], [], []
        for p in payloads:
            inc, seq = self._consumed.get(p['node'], (None, 0))
            self._consumed[p['node']] = (p['inc'], p['seq'] if inc != p['inc'] else max(seq, p['seq']))
            try:
                traj = self._load(p.get('trajectories'))
                eps = self._load(p.get('episodes'))
            except Exception as e:  # its collector died before (or while) the learner read it
                self.lost_batches += 1
                why = str(e) if isinstance(e, TimeoutError) else type(e).__name__
                logger.warning('learner: a batch of node %s was lost (%s); %d lost so far', p['node'], why,
                               self.lost_batches)
                continue
            ctx.env_step += int(p.get('env_step', 0))  # counted once its data arrived
            ctx.env_episode += int(p.get('env_episode', 0))
            if traj is not None:
                offset = sum(len(b) for b in batches)
                end_idx.extend(int(i) + offset for i in p.get('trajectory_end_idx') or [])
                batches.append(traj)
            if eps is not None:
                episodes.extend(eps)
        if batches:
            ctx.trajectories = batches[0] if len(batches) == 1 else Batch.cat(batches)
            ctx.trajectory_end_idx = end_idx
        if episodes:
            ctx.episodes = episodes

    def _load(self, item: Any) -> Any:
        if item is None:
            return None
        if self._storage_loader is not None and hasattr(item, 'load'):
            return self._storage_loader.load(item)
        return _fetch(item, self._load_timeout)  # a TimeoutError: its collector may have died mid-transfer

    # ---- sending ------------------------------------------------------------------------------
    def _send(self, ctx: Any) -> None:
        task = _common.current_task()
        if self.is_collector:
            payload = {'node': self._node, 'inc': self._incarnation}
            if self._to is not None:
                payload['to'] = self._to
            for key in self._last:
                now = int(getattr(ctx, key))
                payload[key], self._last[key] = now - self._last[key], now
            if ctx.trajectories is not None:
                payload['trajectories'] = self._store(ctx.trajectories)
                payload['trajectory_end_idx'] = [int(i) for i in (ctx.trajectory_end_idx or [])]
            if ctx.episodes is not None:
                payload['episodes'] = self._store(list(ctx.episodes))
            if 'trajectories' not in payload and 'episodes' not in payload and not payload['env_step']:
                return
            with self._waiter.cv:
                self._sent_seq += 1
                payload['seq'] = self._sent_seq
            task.emit(self.EVENT.format(role=Role.COLLECTOR.value), payload, only_remote=True)
        if self.is_learner:
            payload = {'train_iter': int(ctx.train_iter), 'acked': dict(self._consumed)}
            task.emit(self.EVENT.format(role=Role.LEARNER.value), payload, only_remote=True)

    def _store(self, data: Any) -> Any:
        if self._storage_loader is not None:
            return self._storage_loader.save(data)
        return _ray().put(data)


class ModelExchanger:
    """The learner publishes its weights once per version (`train_iter`); collectors and
    evaluators load the newest at the start of their step. Weights not fetched within
    `load_timeout` seconds are skipped (counted in `skipped_versions`): the node acts on the
    weights it has until a newer version arrives."""

    def __init__(self, model: Any, model_loader: Any = None, event_name: str = 'model_exchanger',
                 period: int = 1, send: Optional[bool] = None, load_timeout: float = 30.0) -> None:
        task = _common.current_task()
        self._model, self._loader, self._event = model, model_loader, event_name
        self._period = max(1, int(period))
        self._load_timeout = float(load_timeout)
        self.skipped_versions = 0
        self._send_mode = task.has_role(Role.LEARNER) if send is None else send
        self._newest: Optional[tuple] = None
        self._loaded_version = -1
        self._published_version = None
        self._steps = 0
        self._lock = threading.Lock()
        if self._send_mode:
            if model_loader is not None and not getattr(model_loader, 'running', True):
                model_loader.start()
        else:
            task.on(event_name, self._receive)
        contract(self, reads=('train_iter', ), name=type(self).__name__)

    @property
    def loaded_version(self) -> int:
        return self._loaded_version

    def __call__(self, ctx: Any) -> Any:
        if not self._send_mode:
            self._load_newest()
        yield
        self._steps += 1
        if self._send_mode and self._steps % self._period == 0:
            self._publish(int(ctx.train_iter))

    def _receive(self, version: int, item: Any) -> None:
        with self._lock:
            if self._newest is None or version > self._newest[0]:
                self._newest = (version, item)  # older versions are dropped unread

    def _load_newest(self) -> None:
        with self._lock:
            newest, self._newest = self._newest, None
        if newest is None or newest[0] <= self._loaded_version:
            return
        version, item = newest
        if self._loader is not None and hasattr(item, 'load'):
            state = self._loader.load(item)
        else:
            try:
                state = _fetch(item, self._load_timeout)
            except TimeoutError as e:
                self.skipped_versions += 1
                logger.warning('node %s: weights version %d %s (%d skipped); acting on version %d until a newer '
                               'one arrives', _common.current_task().router.node_id, version, e,
                               self.skipped_versions, self._loaded_version)
                return
        import torch
        with warnings.catch_warnings():  # object-store arrays are read-only; load_state_dict copies them
            warnings.simplefilter('ignore', UserWarning)
            state = {k: torch.as_tensor(v) if isinstance(v, np.ndarray) else v for k, v in state.items()}
        self._model.load_state_dict(state)
        from ding.utils.weights_owner import weights_loaded
        weights_loaded(self._model)
        self._loaded_version = version

    def _publish(self, version: int) -> None:
        from ding.utils.dist import get_rank
        if version == self._published_version or get_rank() != 0:  # one put per version; DDP: rank 0 only
            return
        self._published_version = version
        task = _common.current_task()
        if self._loader is not None:
            self._loader.save(lambda handle: task.emit(self._event, version, handle, only_remote=True))
            return
        state = {k: v.detach().cpu().numpy().copy() for k, v in self._model.state_dict().items()}
        task.emit(self._event, version, _ray().put(state), only_remote=True)


class PeriodicalModelExchanger(ModelExchanger):
    """The periodic variant: `mode='send'` publishes every `period` steps, `mode='receive'` loads
    the newest; `delay_toleration`/`stale_toleration` are accepted (newest-wins already bounds it)."""

    def __init__(self, model: Any, mode: str = 'send', period: int = 1, delay_toleration: float = float('inf'),
                 stale_toleration: int = 1, event_name: str = 'model_exchanger', model_loader: Any = None,
                 load_timeout: float = 30.0) -> None:
        if mode not in ('send', 'receive'):
            raise ValueError(f"PeriodicalModelExchanger mode must be 'send' or 'receive', got {mode!r}")
        super().__init__(model, model_loader, event_name, period, send=mode == 'send', load_timeout=load_timeout)


class Barrier:
    """Each step, wait until `attch_from_nums` other nodes reached the same step count."""

    EVENT = 'ding_barrier'

    def __init__(self, attch_from_nums: int = 0, timeout: float = 60) -> None:
        task = _common.current_task()
        self._n, self._timeout = int(attch_from_nums), timeout
        self._seen: Dict[int, set] = {}
        self._step = 0
        self._waiter = _Waiter()
        task.on(self.EVENT, self._arrive)
        contract(self, name='Barrier')

    def _arrive(self, node: int, step: int) -> None:
        with self._waiter.cv:
            self._seen.setdefault(step, set()).add(node)
            self._waiter.cv.notify_all()

    def __call__(self, ctx: Any) -> None:
        task = _common.current_task()
        self._step += 1
        step = self._step
        task.emit(self.EVENT, task.router.node_id, step, only_remote=True)
        deadline = time.monotonic() + self._timeout
        with self._waiter.cv:
            while len(self._seen.get(step, ())) < self._n and not task.finish:
                if time.monotonic() > deadline:
                    raise TimeoutError(f'Barrier: {len(self._seen.get(step, ()))} of {self._n} nodes '
                                       f'reached step {step} within {self._timeout} s')
                self._waiter.cv.wait(0.05)
            self._seen.pop(step, None)
