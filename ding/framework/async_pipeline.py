"""async_mode: the registered middlewares as a pipeline of stages, one thread each.

A step's ctx flows through the stages in registration order over FIFO queues, so it meets
every middleware in the order sync mode would; step s+1 can be in the collector while step s
is in the learner. The last stage's thread then runs the step's backward parts (reverse order).

- Lag: step s enters the first stage once step s - 1 - max_lag completed (max_lag=0: sync
  order on threads). A `fresh_weights` stage (an on-policy learner) is never overtaken: an
  earlier stage starts step s only after it finished step s - 1.
- A stage runs one step at a time (one lock per stage, forward and backward parts alike).
- finish: no step enters the first stage after `task.finish`; steps past it complete.
- Errors: the first one stops the feeding, releases every `task.wait_for`, and `run()`
  re-raises it once every stage thread has exited.
- wait_for: a stage that calls `task.wait_for` hands its step on to the next stage first, so a
  later middleware of the step (or of a later step) can emit the event.
- between_steps: a callback runs in the feeding thread once every step fed so far completed.
- Kept fields (env_step, train_iter, ...): each has one writer stage, the one whose contract
  says `writes=` it (two such contracts are refused at run()). After each call, what the stage
  changed of the step ctx's kept fields is published; before each call, the ctx is loaded with
  the newest published values. So a stage sees its own earlier writes, a reader sees the newest
  value, and after N steps the counters equal the sync run's. A middleware without a contract is
  not checked: what it changes is published after its call (last writer wins).
"""
import os
import queue
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional

from ding.framework.context import Context
from ding.framework.contract import has_contract, middleware_name, waits_outside_gil
from ding.framework.onion import BackwardStack

_UNSET = object()


def why_sync(middlewares: List[Callable], max_lag: int) -> Optional[str]:
    """Why two steps can never be in stages at once (None: they can). Not with max_lag=0, nor
    with an on-policy learner (`fresh_weights`) last: every stage of step s waits for it to
    finish step s - 1. Nor when no stage waits outside the GIL (contract.py): stages that all
    run Python and small torch ops in this interpreter only take turns on it, and the turns
    cost more than the overlap hides (DQN CartPole and SAC Pendulum ran 1.2-1.3x longer).
    Such a pipeline runs as sync does (task.run), so async is never slower there."""
    if max_lag <= 0 or len(middlewares) < 2:
        return 'max_lag is 0' if max_lag <= 0 else 'one middleware'
    if getattr(middlewares[-1], 'fresh_weights', False):
        return f'the last middleware, {middleware_name(middlewares[-1])}, needs fresh weights (on-policy)'
    if not any(waits_outside_gil(fn) for fn in middlewares):
        return ('no middleware waits outside the GIL (envs in this process, learner on the CPU); '
                'envs in a subprocess env manager or a GPU learner would let steps overlap')
    return None


def check_one_writer(middlewares: List[Callable], kept: Any) -> None:
    """Refuse two stages whose contracts write the same kept field: their steps overlap, so
    their updates to it would race."""
    writer: Dict[str, int] = {}  # kept field -> index of the stage that writes it
    for i, fn in enumerate(middlewares):
        for name in getattr(fn, 'writes', ()) if has_contract(fn) else ():
            if name in kept and writer.setdefault(name, i) != i:
                raise ValueError(f"async_mode: kept ctx field '{name}' is written by both "
                                 f"'{middleware_name(middlewares[writer[name]])}' and '{middleware_name(fn)}' "
                                 f"(their contracts' writes=); a kept field needs one writer stage")


@contextmanager
def torch_thread_budget(budget: Optional[int]) -> Iterator[None]:
    """torch's intra-op threads lowered to `budget` for the block (None: left alone): stages
    that each ask torch for every core oversubscribe a small machine."""
    torch = sys.modules.get('torch')  # a process without torch has nothing to budget
    before = torch.get_num_threads() if torch is not None else None
    if budget is not None and before is not None and budget < before:
        torch.set_num_threads(budget)
    try:
        yield
    finally:
        if before is not None and torch.get_num_threads() != before:
            torch.set_num_threads(before)


class _Step:
    __slots__ = ('index', 'ctx', 'stack', 'seen', 'handed_on', 'waiting')

    def __init__(self, index: int, ctx: Context) -> None:
        self.index, self.ctx, self.stack = index, ctx, BackwardStack()
        self.seen: Dict[str, Any] = {}  # the ctx's kept values as last loaded or published
        self.handed_on: set = set()  # stages that passed this step on early (blocked in wait_for)
        self.waiting = 0  # of those, how many are still in their forward part


class _Stage:

    def __init__(self, index: int, fn: Callable) -> None:
        self.index, self.fn, self.lock = index, fn, threading.RLock()
        self.fresh_weights = bool(getattr(fn, 'fresh_weights', False))
        self.inbox: 'queue.SimpleQueue[Optional[_Step]]' = queue.SimpleQueue()
        self.thread: Optional[threading.Thread] = None


class AsyncPipeline:
    """Runs `middlewares` over steps starting from `first_ctx`. `local` is the task's
    thread-local slot through which `task.wrap` and `task.wait_for` find the step and stage
    being processed; `is_finished()` reads `task.finish`; `on_complete(ctx)` is called in step
    order; `on_error()` releases the task's `wait_for` callers."""

    def __init__(self, middlewares: List[Callable], first_ctx: Context, max_lag: int, local: threading.local,
                 is_finished: Callable[[], bool], on_complete: Callable[[Context], None],
                 torch_threads: Optional[int] = None, on_error: Callable[[], None] = lambda: None) -> None:
        if max_lag < 0:
            raise ValueError(f'max_lag must be >= 0, got {max_lag}')
        self._stages = [_Stage(i, fn) for i, fn in enumerate(middlewares)]
        self._first_ctx, self._max_lag, self._local = first_ctx, max_lag, local
        self._is_finished, self._on_complete, self._on_error = is_finished, on_complete, on_error
        self._published = {n: getattr(first_ctx, n) for n in first_ctx.kept_names if first_ctx.has_attr(n)}
        self._lock = threading.Lock()
        self._cv = threading.Condition(self._lock)
        self._done = [0] * len(self._stages)  # steps each fresh_weights stage finished (forward part)
        self._completed = 0
        self._waiting = 0  # stages blocked in task.wait_for now
        self._error: Optional[BaseException] = None
        self._last_ctx = first_ctx
        self._between: List[Callable[[Context], None]] = []
        # Share the cores among the steps that can be in flight at once (the task builds a
        # pipeline only for steps that can overlap: why_sync is None).
        cores = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else (os.cpu_count() or 1)
        self._torch_threads = torch_threads or max(1, cores // min(len(self._stages), max_lag + 1))

    def run(self, max_step: int) -> Context:
        """Feed steps until max_step, finish or an error; returns the last completed ctx."""
        if not self._stages:
            return self._first_ctx
        with torch_thread_budget(self._torch_threads):
            for stage in self._stages:
                stage.thread = threading.Thread(target=self._stage_loop, args=(stage, ), daemon=True,
                                                name=f'ding-stage-{middleware_name(stage.fn)}')
                stage.thread.start()
            try:
                self._feed(max_step)
            except BaseException as err:  # e.g. KeyboardInterrupt in the feeding thread
                self._fail(err)
            finally:
                self._stages[0].inbox.put(None)
                for stage in self._stages:
                    stage.thread.join()
        if self._error is not None:
            raise self._error
        self._call_between()  # asked for by the last steps: nothing is in flight now
        return self._last_ctx

    def between_steps(self, fn: Callable[[Context], None]) -> None:
        """Run `fn(ctx)` in the feeding thread once every step fed so far completed (or as the
        run ends), on a ctx holding the newest kept values. What it raises ends the run."""
        with self._lock:
            self._between.append(fn)

    def _call_between(self) -> None:
        with self._lock:
            callbacks, self._between = self._between, []
            ctx = self._last_ctx
            ctx.keep(*(n for n in self._published if n not in ctx._kept_set()))
            ctx.__dict__.update(self._published)
        for fn in callbacks:
            fn(ctx)

    def _feed(self, max_step: int) -> None:
        for s in range(max_step):
            with self._lock:
                # a pending between-steps callback waits for the steps in flight, unless a stage
                # waits for an event: it may come from step s
                self._wait_until(lambda: self._completed >= s - (0 if self._between and not self._waiting
                                                                  else self._max_lag))
                if self._stopping(s):
                    return
                ready = self._between and self._completed >= s
            if ready:
                self._call_between()
            ctx = self._first_ctx if s == 0 else self._first_ctx.blank()
            if s:
                ctx.total_step = s
            self._stages[0].inbox.put(_Step(s, ctx))

    def _wait_until(self, ready: Callable[[], bool]) -> None:
        while not (ready() or self._error is not None or self._is_finished()):
            self._cv.wait(0.1)

    def _stopping(self, s: int) -> bool:
        """No step s may start: an error, or finish set (step 0 always runs, as in sync)."""
        return self._error is not None or (s > 0 and self._is_finished())

    def _stage_loop(self, stage: _Stage) -> None:
        is_last = stage.index == len(self._stages) - 1
        while True:
            step = stage.inbox.get()
            if step is None:
                break
            not_started = stage.index == 0 and self._stopping(step.index)
            if not_started or self._error is not None or not self._wait_fresh(stage, step.index):
                step.stack.discard()
                continue
            try:
                self._forward(stage, step)
                if stage.fresh_weights:
                    with self._lock:  # only a fresh_weights stage's progress is waited on
                        self._done[stage.index] = step.index + 1
                        self._cv.notify_all()
                if is_last:
                    self._complete(step)
                elif stage.index not in step.handed_on:
                    self._stages[stage.index + 1].inbox.put(step)
            except BaseException as err:
                step.stack.discard()
                self._fail(err)
            finally:
                if stage.index in step.handed_on:
                    with self._lock:
                        step.waiting -= 1
                        self._cv.notify_all()
        if not is_last:
            self._stages[stage.index + 1].inbox.put(None)

    def _wait_fresh(self, stage: _Stage, s: int) -> bool:
        """Wait until every later fresh_weights stage finished step s - 1; False on error."""
        later_fresh = [st.index for st in self._stages[stage.index + 1:] if st.fresh_weights]
        with self._lock:
            while s and not all(self._done[j] >= s for j in later_fresh) and self._error is None:
                self._cv.wait(0.1)
        return self._error is None

    def _forward(self, stage: _Stage, step: _Step) -> None:
        self._local.stack, self._local.lock = step.stack, stage.lock
        waits: list = []
        self._local.before_wait = lambda: self._hand_on(stage, step, waits)
        try:
            with stage.lock:
                if self._error is None:  # else it failed while this step waited for the stage
                    self._published_call(step, step.stack.run_forward, stage.fn, step.ctx, stage.lock)
        finally:
            self._local.stack = self._local.lock = self._local.before_wait = None
            if waits:
                with self._lock:
                    self._waiting -= 1
                    self._cv.notify_all()

    def _published_call(self, step: _Step, fn: Callable, *args: Any) -> None:
        """`fn(*args)` on a ctx loaded with the newest kept values; what it changed is published."""
        ctx, seen = step.ctx, step.seen
        values, kept = ctx.__dict__, ctx._kept_set()
        with self._lock:
            for name, value in self._published.items():
                # a value changed since the last load is a write still in progress (a stage
                # that handed this step on): it is not overwritten
                if name not in seen or values.get(name, _UNSET) is seen[name]:
                    if name not in kept:
                        ctx.keep(name)
                    values[name] = seen[name] = value
        try:
            fn(*args)
        finally:
            with self._lock:
                for name in tuple(ctx.iter_kept_names()):  # a middleware may keep() meanwhile
                    value = values.get(name, _UNSET)
                    if value is not _UNSET and value is not seen.get(name, _UNSET):
                        self._published[name] = seen[name] = value

    def _hand_on(self, stage: _Stage, step: _Step, waits: list) -> Callable[[], bool]:
        """Called by `task.wait_for` in a stage: let the next stage start this step now.
        Returns what tells the wait that the run failed."""
        with self._lock:
            if not waits:
                waits.append(True)
                self._waiting += 1
                self._cv.notify_all()
            hand_on = stage.index < len(self._stages) - 1 and stage.index not in step.handed_on
            if hand_on:
                step.handed_on.add(stage.index)
                step.waiting += 1
        if hand_on:
            self._stages[stage.index + 1].inbox.put(step)
        return lambda: self._error is not None

    def _complete(self, step: _Step) -> None:
        """Run `step`'s backward parts once every stage that handed it on has returned and the
        steps before it completed; then it is the newest completed ctx."""
        with self._lock:
            while (step.waiting or self._completed < step.index) and self._error is None:
                self._cv.wait(0.1)
        if self._error is None and step.stack:
            step.stack.unwind(lambda finish, gen: self._published_call(step, finish, gen))
        if self._error is not None:
            step.stack.discard()
            return
        self._on_complete(step.ctx)
        with self._lock:
            self._last_ctx = step.ctx
            self._completed = step.index + 1
            self._cv.notify_all()

    def _fail(self, err: BaseException) -> None:
        with self._lock:
            first = self._error is None
            self._error = self._error or err
            self._cv.notify_all()
        if first:
            self._on_error()
