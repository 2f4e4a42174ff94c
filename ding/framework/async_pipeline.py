"""async_mode: a software pipeline over the registered middlewares.

Each middleware is a stage with its own thread; a step's ctx flows through the stages in
registration order over FIFO queues, so every ctx sees every middleware in the same order as
in sync mode, and step k+1 can be in the collector while step k is in the learner. The thread
of the last stage then runs the step's backward parts (reverse order) and completes the step.

Bounds and guarantees
- Schedule: a step is either overlapped (fed to the stage threads while earlier steps are in
  flight) or inline (fed once every earlier step completed, and run through all stages by the
  feeding thread). `schedule='auto'` measures both and keeps the faster (overlap_schedule.py).
- Lag: step s enters the first stage only once step s - 1 - max_lag has completed, so at most
  max_lag + 1 steps are in flight (max_lag=0: no overlap, the sync schedule on threads).
- fresh_weights: a stage whose contract says `fresh_weights=True` (an on-policy learner) is
  never overtaken: an earlier stage starts step s only after that stage finished step s - 1.
- Each middleware runs one step at a time, forward and backward parts alike (one lock per
  stage), and a stage processes steps in order.
- finish: once `task.finish` is set no new step enters the first stage; steps already past it
  (at most max_lag of them) complete, so no half-done step is left behind. A finish set by the
  first stage (an evaluator reaching stop_value) thus ends the run after the same step as sync.
- Errors: the first exception stops the feeding, releases every `task.wait_for` in progress
  (it returns None), later stages drop what they receive, every thread exits, and `run()`
  re-raises it within the step. No thread outlives `run()`.
- wait_for: a stage that calls `task.wait_for` hands its step on to the next stage before it
  blocks, so an event that a later middleware of the same step emits arrives (DI-engine's
  async mode runs a step's middlewares concurrently). From then on both run on that step's
  ctx at once, as in DI-engine; the step completes (backward parts, in the order their
  forward parts finished) only once the waiting stage's forward part has returned.
  An event may also come from a later step (a learner last waiting for the next collection).
  So a feeding thread that blocks in `wait_for` during an inline step first hands the feeding
  on to a new thread, and while any stage waits, the next step is fed overlapped: an inline
  step would wait for the waiting one to complete. Steps still complete in order.

- between_steps: a callback that must see no step half done (a run-state checkpoint: env
  snapshot, buffer and learner together) runs in the feeding thread once every step fed so far
  has completed, before the next is fed, or as the run ends (`task.between_steps`). While a
  stage waits for an event it waits too, as the event may come from the next step.

Kept fields (env_step, train_iter, ...) live in one KeptLedger. Each middleware call loads
the newest values into its ctx and folds its changes back (integers as increments), so no
update is lost and after N steps the counters equal the sync run's. What an earlier stage
sees of a later stage's write: in sync mode the evaluator of step k+1 sees `train_iter` after
the learner of step k. Here it sees the newest value published when it starts, i.e. after
the learner of step k - max_lag at the oldest (never older), and exactly the sync value when
the learner already finished step k or when max_lag=0 or the learner has fresh_weights=True.
A stage always sees its own earlier writes (a collector's env_step is exact).
"""
import queue
import sys
import threading
from typing import Callable, List, Optional

from ding.framework.context import Context
from ding.framework.contract import middleware_name
from ding.framework.kept_ledger import KeptLedger
from ding.framework.onion import BackwardStack
from ding.framework.overlap_schedule import OverlapSchedule
from ding.framework.thread_clock import busy_share, thread_clock
from ding.framework.thread_budget import async_thread_budget, torch_thread_budget


class _RunFailed(Exception):
    """Raised in a stage that was about to start a step after the run failed (not recorded:
    the first error is)."""


class _Step:
    __slots__ = ('index', 'ctx', 'stack', 'handed_on', 'waiting', 'fed_on')

    def __init__(self, index: int, ctx: Context) -> None:
        self.index = index
        self.ctx = ctx
        self.stack = BackwardStack()
        self.handed_on: set = set()  # stages that passed this step on early (blocked in wait_for)
        self.waiting = 0  # of those, how many are still in their forward part
        self.fed_on = False  # run inline, its feeding thread blocked in wait_for and handed the feeding on


class _InlineWaitHook:
    """`task.wait_for`'s hook (`before_wait`) while an inline step runs: one per step, pointed
    at the stage running now. `waits` is non-empty once that stage called `task.wait_for`."""
    __slots__ = ('pipeline', 'step', 'stage', 'waits')

    def __init__(self, pipeline: 'AsyncPipeline', step: _Step) -> None:
        self.pipeline, self.step, self.stage, self.waits = pipeline, step, None, []

    def __call__(self) -> Callable[[], bool]:
        return self.pipeline._hand_on(self.stage, self.step, self.waits, True)


class _Stage:

    def __init__(self, index: int, fn: Callable) -> None:
        self.index = index
        self.fn = fn
        self.lock = threading.RLock()
        self.fresh_weights = bool(getattr(fn, 'fresh_weights', False))
        self.inbox: 'queue.SimpleQueue[Optional[_Step]]' = queue.SimpleQueue()
        self.thread: Optional[threading.Thread] = None


class AsyncPipeline:
    """Runs `middlewares` for up to `max_step` steps starting from `first_ctx`.

    `local` is the task's thread-local slot through which `task.wrap` finds the step being
    processed (`local.stack`, `local.lock`); `is_finished()` reads `task.finish`;
    `on_complete(ctx)` is called in step order as each step completes.
    """

    def __init__(self, middlewares: List[Callable], first_ctx: Context, max_lag: int, local: threading.local,
                 is_finished: Callable[[], bool], on_complete: Callable[[Context], None],
                 torch_threads: Optional[int] = None, on_error: Callable[[], None] = lambda: None,
                 schedule: str = 'auto') -> None:
        if max_lag < 0:
            raise ValueError(f'max_lag must be >= 0, got {max_lag}')
        self._stages = [_Stage(i, fn) for i, fn in enumerate(middlewares)]
        self._first_ctx = first_ctx
        self._max_lag = max_lag
        self._local = local
        self._is_finished = is_finished
        self._on_complete = on_complete
        self._on_error = on_error  # releases the task's wait_for callers
        self._ledger = KeptLedger(first_ctx)
        # a plain lock, taken directly where nothing waits: Condition's own `with` is Python code
        self._lock = threading.Lock()
        self._cv = threading.Condition(self._lock)
        self._done = [0] * len(self._stages)  # steps each fresh_weights stage finished (forward part)
        self._completed = 0
        self._waiting = 0  # stages blocked in task.wait_for now
        self._feeders: List[threading.Thread] = []  # feeding threads started by a hand-off
        self._max_step = 0
        self._error: Optional[BaseException] = None
        self._last_ctx = first_ctx
        self._between: List[Callable[[Context], None]] = []  # callbacks waiting for no step in flight
        # None: share the cores among the stages that can be busy at once (thread_budget.py); a
        # pipeline that can never overlap (an on-policy learner last) runs one stage at a time,
        # as sync does, so it keeps the threads sync would have.
        self._torch_threads = torch_threads or (
            async_thread_budget(len(self._stages), max_lag) if self._can_overlap() else None)
        # Inline steps keep this budget too: raising torch's threads mid-run, with the stage
        # threads alive, made inline steps 2.1x slower (310 ms against 147 ms on issue 18's pipeline).
        self.schedule = OverlapSchedule(schedule, can_overlap=self._can_overlap())

    def run(self, max_step: int) -> Context:
        """Feed steps until max_step, finish or an error; returns the last completed ctx."""
        if not self._stages:
            return self._first_ctx
        with torch_thread_budget(self._torch_threads):
            return self._run(max_step)

    def _can_overlap(self) -> bool:
        """False when no two steps can ever be in stages at once: max_lag=0, or a fresh_weights
        stage last (every stage of step s waits for it to finish step s - 1)."""
        return self._max_lag > 0 and len(self._stages) > 1 and not self._stages[-1].fresh_weights

    def _run(self, max_step: int) -> Context:
        # Stage hand-offs wait on the GIL; a short switch interval lets a stage that released it
        # (env stepping, torch kernels) get it back sooner. Restored when the run ends.
        switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(switch_interval, 0.0005))
        for stage in self._stages:
            stage.thread = threading.Thread(
                target=self._stage_loop, args=(stage, ), name=f'ding-stage-{middleware_name(stage.fn)}', daemon=True
            )
            stage.thread.start()
        self._max_step = max_step
        try:
            self._feed(0)
            self._join_feeders()
        except BaseException as err:  # e.g. KeyboardInterrupt in the feeding thread
            self._fail(err)
            self._join_feeders()
        finally:
            self._stages[0].inbox.put(None)
            for stage in self._stages:
                stage.thread.join()
            sys.setswitchinterval(switch_interval)
        if self._error is not None:
            raise self._error
        self._call_between(self._last_ctx)  # asked for by the last steps: nothing is in flight now
        return self._last_ctx

    def between_steps(self, fn: Callable[[Context], None]) -> None:
        """Run `fn(ctx)` once no step is in flight: after every step fed so far has completed,
        before the next one is fed (or as the run ends), in the feeding thread, with a ctx that
        holds the newest kept values. What it raises ends the run like a middleware error."""
        with self._lock:
            self._between.append(fn)

    def _call_between(self, ctx: Context) -> None:
        """The between-steps callbacks asked for so far, on `ctx` loaded with the newest kept values."""
        self._ledger.load(ctx)
        with self._lock:
            callbacks, self._between = self._between, []
        for fn in callbacks:
            fn(ctx)

    def _run_between(self, s: int) -> None:
        """The between-steps callbacks, once steps before s completed; left for a later step
        while a stage waits for an event (it may come from step s) or when no step s follows."""
        with self._lock:
            self._wait_until(lambda: self._completed >= s or self._waiting > 0, s)
            if self._completed < s or self._stopping(s):
                return
            ctx = self._last_ctx
        start = self.schedule.clock()
        self._call_between(ctx)
        self.schedule.skip_time(self.schedule.clock() - start)  # no step's cost

    def _feed(self, first: int) -> None:
        """Feed steps first, first + 1, ... until max_step, finish, an error, or a hand-off of
        the feeding to another thread (this one blocked in wait_for during an inline step)."""
        for s in range(first, self._max_step):
            with self._lock:
                if self.schedule.wants_drain():  # its next choice needs the steps in flight measured
                    self._wait_until(lambda: self._completed >= s, s)
                overlap = self.schedule.next_overlaps()
                if overlap or self._completed < s or self._waiting:  # else inline, nothing in flight: go
                    # an inline step waits for every earlier step; if one of them waits for an event,
                    # that event may come from this step, so it is fed overlapped instead
                    forced = lambda: not overlap and self._waiting > 0 and self._can_overlap()  # noqa: E731
                    self._wait_until(lambda: self._completed >= s - (self._max_lag if overlap or forced() else 0), s)
                    overlap = overlap or forced()
                if self._stopping(s):
                    return
            if self._between:  # asked for by a step that completed meanwhile
                self._run_between(s)
            self.schedule.step_fed(overlap)
            # an inline step loads the kept values when it begins (`_run_stages_alone`)
            step = _Step(s, self._first_ctx if s == 0 else self._ledger.new_ctx(self._first_ctx, s, load=overlap))
            if overlap:
                self._stages[0].inbox.put(step)
            elif not self._run_inline(step) or step.fed_on:
                return

    def _wait_until(self, ready: Callable[[], bool], s: int) -> None:
        while not (ready() or self._stopping(s)):
            self._cv.wait(0.1)

    def _feed_on(self, first: int) -> None:
        try:
            self._feed(first)
        except BaseException as err:
            self._fail(err)

    def _join_feeders(self) -> None:
        i = 0
        while i < len(self._feeders):  # a feeder appends its successor before it exits
            self._feeders[i].join()
            i += 1

    def _run_inline(self, step: _Step) -> bool:
        """All stages of `step` in this thread, then its backward parts; False on an error.
        A stage that calls `task.wait_for` hands the rest of the step to the stage threads, as
        in an overlapped step, so a later middleware of the step can emit the event."""
        start = thread_clock() if self.schedule.wants_inline_timing() else None
        try:
            entry = self._run_stages_alone(step)
            if entry is None:
                return self._error is None  # handed on: the last stage's thread completes the step
            if step.fed_on:  # it blocked on another thread's event, and later steps were fed meanwhile
                self._ledger.end(step.ctx, entry)
                self._complete(step)
                return self._error is None
            if start is not None:
                self.schedule.inline_step_timed(busy_share(start, thread_clock()))
            self._complete(step, alone=entry)
        except BaseException as err:
            step.stack.discard()
            self._fail(err)
        return self._error is None

    def _run_stages_alone(self, step: _Step) -> Optional[list]:
        """The forward parts of `step`'s stages in this thread. Returns the step's ledger entry,
        still open, or None when a stage handed the step on (the entry is folded then: the step
        is no longer alone). Alone, the step loads and folds its kept fields once, not around
        each middleware call (3% of a SAC step), and sets the thread's task slots once."""
        entry = self._ledger.begin(step.ctx)
        local, hook = self._local, _InlineWaitHook(self, step)
        local.stack, local.before_wait = step.stack, hook
        try:
            for stage in self._stages:
                hook.stage, local.lock = stage, stage.lock
                try:
                    with stage.lock:
                        if self._error is not None:  # failed while this step waited (a wait_for before)
                            raise _RunFailed()
                        step.stack.run_forward(stage.fn, step.ctx, stage.lock)
                    if stage.fresh_weights:
                        self._finished_forward(stage, step)
                finally:
                    if hook.waits:
                        hook.waits.clear()
                        self._end_wait()
                    if stage.index in step.handed_on:
                        self._ledger.end(step.ctx, entry)
                        entry = None
                        with self._lock:
                            step.waiting -= 1
                            self._cv.notify_all()
                if entry is None:
                    return None
            return entry
        except BaseException:
            if entry is not None:
                self._ledger.end(step.ctx, entry)
            raise
        finally:
            local.stack = local.lock = local.before_wait = None

    def _stage_loop(self, stage: _Stage) -> None:
        is_last = stage.index == len(self._stages) - 1
        while True:
            step = stage.inbox.get()
            if step is None:
                break
            not_started = stage.index == 0 and self._stopping(step.index)
            if not_started or self._error is not None or not self._wait_fresh(stage, step.index):
                self._drop(step)
                continue
            try:
                self._run_stage(stage, step)
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

    def _stopping(self, s: int) -> bool:
        """No step s may start: an error, or finish set (step 0 always runs, as in sync)."""
        return self._error is not None or (s > 0 and self._is_finished())

    def _drop(self, step: _Step) -> None:
        step.stack.discard()
        with self._lock:
            self._cv.notify_all()

    def _wait_fresh(self, stage: _Stage, s: int) -> bool:
        """Wait until every later fresh_weights stage finished step s - 1; False on error."""
        later_fresh = [st.index for st in self._stages[stage.index + 1:] if st.fresh_weights]
        if not later_fresh or s == 0:
            return True
        with self._lock:
            while not all(self._done[j] >= s for j in later_fresh):
                if self._error is not None:
                    return False
                self._cv.wait(0.1)
        return self._error is None

    def _run_stage(self, stage: _Stage, step: _Step) -> None:
        self._forward(stage, step)
        if stage.fresh_weights:
            self._finished_forward(stage, step)

    def _finished_forward(self, stage: _Stage, step: _Step) -> None:
        with self._lock:  # only a fresh_weights stage's progress is waited on
            self._done[stage.index] = step.index + 1
            self._cv.notify_all()

    def _forward(self, stage: _Stage, step: _Step) -> None:
        self._local.stack, self._local.lock = step.stack, stage.lock
        waits = []
        self._local.before_wait = lambda: self._hand_on(stage, step, waits, False)
        try:
            with stage.lock:
                if self._error is not None:  # failed while this step waited for the stage
                    raise _RunFailed()
                self._ledger.run(step.ctx, step.stack.run_forward, stage.fn, step.ctx, stage.lock)
        finally:
            self._local.stack = self._local.lock = self._local.before_wait = None
            if waits:
                self._end_wait()

    def _end_wait(self) -> None:
        """A stage that waited in `task.wait_for` returned from its forward part."""
        with self._lock:
            self._waiting -= 1
            self._cv.notify_all()

    def _hand_on(self, stage: _Stage, step: _Step, waits: list, alone: bool) -> Callable[[], bool]:
        """Called by `task.wait_for` in a stage: let the next stage start this step now, and
        if this thread feeds the pipeline, start a new feeding thread. Returns what tells the
        wait that the run failed (also before it began: the release came earlier)."""
        if not waits:
            waits.append(True)
            with self._lock:
                self._waiting += 1
                self._cv.notify_all()  # a feeding thread waiting to run a step inline feeds it overlapped
        if alone and not step.fed_on:  # this is the feeding thread
            step.fed_on = True
            feeder = threading.Thread(target=self._feed_on, args=(step.index + 1, ), name='ding-feeder', daemon=True)
            self._feeders.append(feeder)
            feeder.start()
        if stage.index < len(self._stages) - 1 and stage.index not in step.handed_on:
            with self._lock:
                step.handed_on.add(stage.index)
                step.waiting += 1
            self._stages[stage.index + 1].inbox.put(step)
        return lambda: self._error is not None

    def _complete(self, step: _Step, alone: Optional[list] = None) -> None:
        """Run `step`'s backward parts and publish it. `alone`: the open ledger entry of an inline
        step that ran alone throughout; its backward parts run inside that one load and fold."""
        if step.waiting or self._completed < step.index:  # once ready they stay so: read without the lock
            with self._lock:  # a stage that handed this step on may still be in its forward part; and
                # a step that blocked in wait_for in the feeding thread may finish after later ones
                while (step.waiting or self._completed < step.index) and self._error is None:
                    self._cv.wait(0.1)
        try:
            if step.stack and self._error is None:
                folded = lambda finish, gen: self._ledger.run(step.ctx, finish, gen)  # noqa: E731
                step.stack.unwind(None if alone is not None else folded)
        finally:
            if alone is not None:
                self._ledger.end(step.ctx, alone)
        if self._error is not None:
            step.stack.discard()
        else:
            self._publish(step)

    def _publish(self, step: _Step) -> None:
        """`step` completed: the newest completed ctx, in step order."""
        self._on_complete(step.ctx)
        with self._lock:
            self._last_ctx = step.ctx
            self._completed = step.index + 1
            self.schedule.step_completed()
            self._cv.notify_all()

    def _fail(self, err: BaseException) -> None:
        with self._lock:
            first = self._error is None
            if first:
                self._error = err
            self._cv.notify_all()
        if first:
            self._on_error()
