"""`Task`: registers middlewares and runs them step after step over a Context.

`task` (the global instance) is what pipelines use:

    with task.start(ctx=OnlineRLContext()):
        task.use(collector).use(learner)
        task.run(max_step=100)

Sync mode runs each step's forward parts in order, the backward parts in reverse order, then
renews the ctx. async_mode runs the same steps through a software pipeline (async_pipeline.py)
so that different steps overlap. Events, roles and labels serve distributed runs, whose
transport is `task.router` (router.py).
"""
import logging
import math
import sys
import threading
from typing import Any, Callable, Iterable, List, Optional, Set, Tuple, Union

from ding.framework.async_pipeline import AsyncPipeline, check_one_writer, why_sync
from ding.framework.context import Context
from ding.framework.contract import has_contract, inherit_contract
from ding.framework.events import EventBus
from ding.framework.hand_steps import HandSteps
from ding.framework.onion import (BackwardStack, Middleware, locked, parallel, serial, stage_local, start_middleware,
                                   void)
from ding.framework.pipeline_table import custom_contract_names, pipeline_table, warn_wiring
from ding.framework.roles import Role, match_labels
from ding.framework.router import LocalRouter, Router
from ding.utils.threads import apply_default_torch_threads

logger = logging.getLogger(__name__)
Wrapper = Callable[[Middleware], Middleware]


class Task:
    """The middleware runtime. Use the global `task` rather than making another."""

    role = Role

    def __init__(self) -> None:
        self.router: Router = LocalRouter()
        self.labels: Set[str] = set()
        self._running = False
        self._phase_lock = threading.Lock()
        self._lock = threading.RLock()  # shared by every `use(fn, lock=True)`
        self._local = stage_local  # the step a stage thread is processing (async mode; onion.py)
        self._pipeline: Optional[AsyncPipeline] = None  # while an async run runs
        self._reset(Context(), False, 3, 1, None)

    def _reset(self, ctx: Context, async_mode: bool, n_async_workers: int, max_lag: int,
               torch_threads: Optional[int]) -> None:
        """The state of a new run: no middleware, wrapper or role, no pending event or backward part."""
        self.ctx = ctx
        self.async_mode, self.n_async_workers, self.max_lag = async_mode, n_async_workers, max_lag
        self.torch_threads = torch_threads
        self._finish = False
        self.finish_reason: Optional[str] = None  # why the run ended, when a middleware said (`end`)
        self._unwinding = False  # the sync loop is running the step's backward parts
        self._finish_late = False  # a peer's finish came while they ran
        self._middleware: list = []
        self._wrappers: list = []
        self._roles: Set[Role] = set()
        self._sync_stack = BackwardStack()
        self._events = EventBus()
        self._hand = HandSteps(self._events.release_waiters)

    # ---- lifecycle -------------------------------------------------------------------------
    def start(self, async_mode: bool = False, n_async_workers: int = 3, ctx: Optional[Context] = None,
              labels: Optional[Iterable[str]] = None, max_lag: int = 1,
              torch_threads: Optional[int] = None) -> 'Task':
        """Begin a run with no middleware. `async_mode=True` overlaps the stages of successive
        steps (async_pipeline.py). `max_lag` (async only): how many steps collection may run
        ahead of the oldest unfinished step. `torch_threads` (async only): torch's intra-op
        threads while the pipeline runs; None shares the cores among the steps that can be in
        flight at once. `n_async_workers`: the size of the thread pool of `task.forward` by hand
        (hand_steps.py); the pipeline uses one thread per middleware."""
        if self._running:
            self.stop()
        if max_lag < 0:
            raise ValueError(f'max_lag must be >= 0, got {max_lag}')
        self._reset(ctx if ctx is not None else Context(), async_mode, n_async_workers, max_lag, torch_threads)
        if not (async_mode and torch_threads):  # one intra-op thread unless the user chose (ding/utils/threads.py)
            apply_default_torch_threads()
        self._running = True
        self.labels = set(labels or ()) | {'async' if async_mode else 'sync'}
        self.labels.add('distributed' if self.router.is_active else 'standalone')
        if self.router.is_active:  # a peer's finish ends this node too (see the `finish` setter)
            self._events.on('finish', self._remote_finish)
        self.router.start(self._events.emit)
        return self

    def stop(self) -> None:
        """End the run: set `finish` (a `run()` in progress ends within a step), release
        `wait_for` callers, stop the router, drop pending backward parts. `run()` joins its
        threads before returning, so none is left running."""
        self._finish = True
        self._running = False
        self._events.close()
        self._hand.shutdown()
        self.router.stop()
        self._sync_stack.discard()

    def __enter__(self) -> 'Task':
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._running

    @property
    def finish(self) -> bool:
        return self._finish

    @finish.setter
    def finish(self, value: bool) -> None:
        """Setting it in a distributed run ends every node."""
        if value and not self._finish and self.router.is_active:
            self.router.emit('finish', True)
        self._finish = bool(value)

    def end(self, reason: str) -> None:
        """Set `finish` and say why. A distributed launcher reports the reason from its driver:
        a node's own log lines may not reach the driver before the cluster stops."""
        if self.finish_reason is None:
            self.finish_reason = reason
        self.finish = True

    def _remote_finish(self, *args: Any, **kwargs: Any) -> None:
        # A peer's finish lands on another thread at any moment. Arriving while the step's
        # backward parts run, some would have seen it and some not (CkptSaver would miss its
        # final save): it is held until they are done, and one more step then sees it whole.
        with self._phase_lock:
            if self._finish:
                return
            if self._unwinding:
                self._finish_late = True
            else:
                self._finish = True

    def _unwind_step(self) -> bool:
        """The step's backward parts, with `finish` steady while they run; True when a peer's
        finish arrived meanwhile (it now holds for the next step)."""
        with self._phase_lock:
            self._unwinding = True
        try:
            self.backward(async_mode=False)  # in this loop, never by the hand-step pool
        finally:
            with self._phase_lock:
                late = self._finish_late and not self._finish  # else finish was set here too
                self._unwinding, self._finish_late = False, False
                self._finish = self._finish or late
        return late

    # ---- registration ----------------------------------------------------------------------
    def use(self, fn: Middleware, lock: Union[bool, Any] = False) -> 'Task':
        """Append a middleware; `lock=True` (or a lock object) serialises it with others sharing it."""
        if lock:
            fn = locked(fn, self._lock if lock is True else lock)
        for wrapper in self._wrappers:
            fn = _apply_wrapper(wrapper, fn)
        self._middleware.append(fn)
        return self

    def use_wrapper(self, wrapper: Wrapper) -> 'Task':
        """Wrap every middleware, those already registered and those registered later."""
        self._middleware = [_apply_wrapper(wrapper, fn) for fn in self._middleware]
        self._wrappers.append(wrapper)
        return self

    @property
    def middlewares(self) -> Tuple[Middleware, ...]:
        return tuple(self._middleware)

    def pipeline_table(self) -> str:
        return pipeline_table(self._middleware, self.ctx)

    serial = staticmethod(serial)
    parallel = staticmethod(parallel)
    void = staticmethod(void)

    # ---- running ---------------------------------------------------------------------------
    def run(self, max_step: int = int(1e12)) -> None:
        """Run steps until `max_step` or until `task.finish` is set; then `task.finish` is True."""
        if not self._running:
            raise RuntimeError('task.run() needs a started task: use `with task.start(...):`')
        self.router.running()
        runs_as_sync = why_sync(self._middleware, self.max_lag) if self.async_mode else None
        mode = f'async mode, max_lag {self.max_lag}' if self.async_mode else 'sync mode'
        logger.info('pipeline (%s):\n%s', mode, self.pipeline_table())
        if runs_as_sync:
            logger.warning('async_mode: steps run one after another, as in sync mode: %s', runs_as_sync)
        if not self.ctx.strict:  # custom names a contract states are meant, however close to a field
            self.ctx.declare(*custom_contract_names(self._middleware, type(self.ctx)))
        warn_wiring(self._middleware, self.ctx)
        if self.async_mode:  # whether or not its steps overlap here: the same pipeline may elsewhere
            check_one_writer(self._middleware, self.ctx.kept_names)
        if self.async_mode and runs_as_sync is None:
            pipeline = AsyncPipeline(
                list(self._middleware), self.ctx, self.max_lag, self._local, lambda: self._finish, self._completed,
                torch_threads=self.torch_threads, on_error=self._events.release_waiters)
            self._pipeline = pipeline
            try:
                self.ctx = pipeline.run(max_step)
            finally:
                self._pipeline = None
            self._finish = self._finish or max_step > 0
            return
        for i in range(max_step):
            try:
                for fn in self._middleware:
                    self._sync_stack.run_forward(fn, self.ctx)
                late_finish = self._unwind_step()
            except BaseException:
                self._sync_stack.discard()
                raise
            if i == max_step - 1:
                self._finish = True
                break
            if self._end_of_step(ready=self._finish and not late_finish):
                break
            self.renew()

    def between_steps(self, fn: Callable[[Context], None], ctx: Optional[Context] = None) -> None:
        """Run `fn(ctx)` where no step is half done, e.g. a checkpoint that must find the env
        snapshot, the buffer and the learner agreeing. Sync mode: at once on `ctx` (default
        `task.ctx`), so call it where the step is done (a first-registered middleware's
        post-yield part runs last). async_mode: once every step fed so far has completed, before
        the next is fed, or as the run ends, on a ctx holding the newest kept values
        (async_pipeline.py)."""
        pipeline = self._pipeline
        if pipeline is None:
            fn(self.ctx if ctx is None else ctx)
        else:
            pipeline.between_steps(fn)

    def _end_of_step(self, ready: bool) -> bool:
        """Whether the run stops after this step. Ranks of one torch.distributed group (DDP
        learners) decide together: a finish any of them knows reaches all, and they stop on
        the same step, since a rank that went on alone would wait for ever in a collective."""
        if not _in_data_parallel_group():
            return ready
        from ding.utils.dist import end_step_together
        stop, known = end_step_together(ready, self._finish)
        if known:
            self._finish = True
        return stop

    def _completed(self, ctx: Context) -> None:
        self.ctx = ctx

    def forward(self, fn: Middleware, ctx: Optional[Context] = None, async_mode: Optional[bool] = None) -> 'Task':
        """Run `fn`'s forward part on `ctx` (default `task.ctx`), recording its backward part.
        In async mode (outside a pipeline stage) it is submitted to a thread pool: call `sync()`
        to wait for it (hand_steps.py)."""
        ctx = ctx if ctx is not None else self.ctx
        if self._by_pool(async_mode):
            self._hand.submit(self.n_async_workers, self._sync_stack.run_forward, fn, ctx)
        else:
            self._current_stack().run_forward(fn, ctx, getattr(self._local, 'lock', None))
        return self

    def backward(self, async_mode: Optional[bool] = None) -> 'Task':
        """Run the recorded backward parts of this step, last registered first (in async mode
        submitted to the pool; `sync()` waits for them)."""
        if self._by_pool(async_mode):
            self._hand.submit(self.n_async_workers, self._sync_stack.unwind)
        else:
            self._sync_stack.unwind()
        return self

    def sync(self) -> 'Task':
        """Wait for the forward and backward parts submitted in async mode; raise the first error."""
        self._hand.sync()
        return self

    def _by_pool(self, async_mode: Optional[bool]) -> bool:
        in_stage = getattr(self._local, 'stack', None) is not None
        return (self.async_mode if async_mode is None else async_mode) and not in_stage

    def renew(self) -> 'Task':
        self.ctx = self.ctx.renew()
        return self

    def wrap(self, fn: Middleware, lock: Union[bool, Any] = False) -> Callable[[Context], Callable[[], None]]:
        """Let a middleware run `fn` inline: `backward = task.wrap(fn)(ctx)` runs its forward part;
        `backward()` runs its backward part, which otherwise runs at the end of the step."""
        if lock:
            fn = locked(fn, self._lock if lock is True else lock)

        def _forward(ctx: Context) -> Callable[[], None]:
            gen = start_middleware(fn, ctx)
            if gen is None:
                return lambda: None
            stack = self._current_stack()
            entry = stack.push(gen, getattr(self._local, 'lock', None))
            return lambda: stack.finish_one(entry)

        return inherit_contract(_forward, fn)

    def _current_stack(self) -> BackwardStack:
        stack = getattr(self._local, 'stack', None)
        return self._sync_stack if stack is None else stack

    # ---- events ----------------------------------------------------------------------------
    def on(self, event: str, fn: Callable) -> None:
        self._events.on(event, fn)

    def once(self, event: str, fn: Callable) -> None:
        self._events.once(event, fn)

    def off(self, event: str, fn: Optional[Callable] = None) -> None:
        self._events.off(event, fn)

    def emit(self, event: str, *args: Any, only_remote: bool = False, only_local: bool = False, **kwargs: Any) -> None:
        """Call local handlers (unless only_remote) and send to other nodes (unless only_local)."""
        if not only_remote:
            self._events.emit(event, *args, **kwargs)
        if not only_local and self.router.is_active:
            self.router.emit(event, *args, **kwargs)

    def wait_for(self, event: str, timeout: float = math.inf, ignore_timeout_exception: bool = True) -> Any:
        """Block until `event`; returns `(args, kwargs)`, or None on timeout, `stop()` or an error
        of the run. In an async pipeline stage the step goes on to the next stage first, so a
        later middleware of the same step can emit the event (async_pipeline.py)."""
        before_wait = getattr(self._local, 'before_wait', None)
        if before_wait is None:
            return self._events.wait_for(event, timeout, ignore_timeout_exception)
        # hand the step on only once listening: the next stage may emit the event at once
        run_failed: List[Callable[[], bool]] = []  # a stage of an async run that failed waits for nothing
        return self._events.wait_for(event, timeout, ignore_timeout_exception,
                                     cancelled=lambda: any(failed() for failed in run_failed),
                                     on_listening=lambda: run_failed.append(before_wait()))

    # ---- roles and labels ------------------------------------------------------------------
    def add_role(self, role: Role) -> None:
        self._roles.add(Role(role))

    def has_role(self, role: Role) -> bool:
        """True when this node plays `role`, or plays no declared role (a standalone run)."""
        return not self._roles or Role(role) in self._roles

    @property
    def roles(self) -> Set[Role]:
        return set(self._roles)

    def match_labels(self, patterns: Union[str, Iterable[str]]) -> bool:
        return match_labels(self.labels, patterns)

    def __reduce__(self) -> Any:
        """The global task pickles as a reference to the receiving process's global task, so a
        `main()` shipped to a node actor of a distributed run uses that node's task."""
        if self is not task:
            raise TypeError('only the global ding.framework.task can be pickled')
        return (_global_task, ())


def _global_task() -> 'Task':
    return task


def _apply_wrapper(wrapper: Wrapper, fn: Middleware) -> Middleware:
    wrapped = wrapper(fn)
    if wrapped is not fn and not has_contract(wrapped):
        inherit_contract(wrapped, fn)
    return wrapped


def _in_data_parallel_group() -> bool:
    # torch.distributed is imported only by code that may join a group; no import here
    dist = sys.modules.get('torch.distributed')
    return dist is not None and dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


task = Task()
