"""Running one middleware: the onion model and the combinators built on it.

A middleware is a callable taking ctx. If it returns a generator, the code before its `yield`
is the forward part of the step and the code after it the backward part; backward parts run
at the end of the step in reverse order, which `BackwardStack` records and unwinds.
"""
import inspect
import threading
from typing import Any, Callable, Generator, List, Optional, Tuple

from ding.framework.contract import has_contract, inherit_contract, middleware_name, waits_outside_gil

Middleware = Callable[[Any], Any]


def start_middleware(fn: Middleware, ctx: Any) -> Optional[Generator]:
    """Run `fn`'s forward part; return its generator when a backward part is pending."""
    out = fn(ctx)
    if not inspect.isgenerator(out):
        return None
    try:
        next(out)
    except StopIteration:
        return None
    return out


def finish_middleware(gen: Generator) -> None:
    """Run a generator middleware's backward part; it must not yield again."""
    try:
        next(gen)
    except StopIteration:
        return
    gen.close()
    raise RuntimeError(f'middleware {gen.__name__!r} yielded more than once; a middleware yields at most once')


class BackwardStack:
    """Pending backward parts of one step, each with the lock it must hold while running."""

    def __init__(self) -> None:
        self._items: List[list] = []

    def __len__(self) -> int:
        return len(self._items)

    def push(self, gen: Optional[Generator], lock: Any = None) -> list:
        entry = [gen, lock]
        self._items.append(entry)
        return entry

    def run_forward(self, fn: 'Middleware', ctx: Any, lock: Any = None) -> None:
        """Run `fn`'s forward part and record its backward part in `fn`'s place in the stack:
        inner middlewares that `fn` runs through `task.wrap` unwind before `fn` itself."""
        place = len(self._items)
        gen = start_middleware(fn, ctx)
        if gen is not None:
            self._items.insert(min(place, len(self._items)), [gen, lock])

    def finish_one(self, entry: list, runner: Callable = None) -> None:
        """Run one entry now (for `task.wrap`); a no-op if it already ran."""
        for i, item in enumerate(self._items):
            if item is entry:
                del self._items[i]
                _run_entry(entry, runner)
                return

    def unwind(self, runner: Callable = None) -> None:
        """Run every pending backward part, last pushed first."""
        while self._items:
            _run_entry(self._items.pop(), runner)

    def discard(self) -> None:
        """Close pending generators without running their backward parts (after an error)."""
        while self._items:
            gen = self._items.pop()[0]
            if gen is not None:
                gen.close()


def _run_entry(entry: list, runner: Optional[Callable]) -> None:
    gen, lock = entry
    call = (lambda: runner(finish_middleware, gen)) if runner else (lambda: finish_middleware(gen))
    if lock is None:
        call()
    else:
        with lock:
            call()


def locked(fn: Middleware, lock: Any) -> Middleware:
    """`fn` with both its forward and its backward part holding `lock`.

    In an async pipeline the step is first handed on to the next middleware, as `task.wait_for`
    does (async_pipeline.py), so that the middlewares of a step that hold different locks run at
    once and those sharing a lock one after another; the step completes once every forward part
    returned. In sync mode nothing is handed on."""

    def _locked(ctx: Any):
        with lock:
            hand_on = getattr(stage_local, 'before_wait', None)  # None outside an async pipeline stage
            if hand_on is not None:  # after taking the lock: a later middleware sharing it runs after this one
                hand_on()
            gen = start_middleware(fn, ctx)
        if gen is not None:
            yield
            with lock:
                finish_middleware(gen)

    return inherit_contract(_locked, fn)


# The step a stage thread is processing in async mode (its backward stack, its lock and the
# hand-on hook `task.wait_for` calls). The task writes it; it lives here, below the task, so
# that `locked` can read the hook without importing the task.
stage_local = threading.local()


def serial(*fns: Middleware) -> Middleware:
    """One middleware running `fns` in order, their backward parts in reverse order."""

    def _serial(ctx: Any):
        gens = [start_middleware(fn, ctx) for fn in fns]
        yield
        for gen in reversed(gens):
            if gen is not None:
                finish_middleware(gen)

    return _combined(_serial, fns, 'serial', sequential=True)


def parallel(*fns: Middleware) -> Middleware:
    """One middleware running the forward parts of `fns` at once, each in its own thread
    (joined before it returns); backward parts run in reverse order afterwards."""

    def _parallel(ctx: Any):
        gens: List[Optional[Generator]] = [None] * len(fns)
        errors: List[BaseException] = []

        def _one(i: int) -> None:
            try:
                gens[i] = start_middleware(fns[i], ctx)
            except BaseException as err:  # re-raised in the calling thread below
                errors.append(err)

        threads = [threading.Thread(target=_one, args=(i, ), daemon=True) for i in range(len(fns))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            for gen in gens:
                if gen is not None:
                    gen.close()
            raise errors[0]
        yield
        for gen in reversed(gens):
            if gen is not None:
                finish_middleware(gen)

    return _combined(_parallel, fns, 'parallel', sequential=False)


def _combined(wrapper: Middleware, fns: Tuple[Middleware, ...], kind: str, sequential: bool) -> Middleware:
    """Name and contract of a combined middleware: in a serial group a field written by an
    earlier member is not an outside read; in a parallel group every member's reads are."""
    names = ', '.join(middleware_name(fn) for fn in fns)
    wrapper.middleware_name = f'{kind}({names})'
    wrapper.fresh_weights = any(getattr(fn, 'fresh_weights', False) for fn in fns)
    wrapper.waits_outside_gil = any(waits_outside_gil(fn) for fn in fns)
    if all(has_contract(fn) for fn in fns):
        written: set = set()
        reads: List[str] = []
        for fn in fns:
            reads += [r for r in fn.reads if r not in written and r not in reads]
            if sequential:
                written.update(fn.writes)
        wrapper.reads = tuple(reads)
        wrapper.writes = tuple(dict.fromkeys(w for fn in fns for w in fn.writes))
    return wrapper


def void() -> Middleware:
    """A middleware that does nothing (to fill a slot a role does not use)."""

    def _void(ctx: Any) -> None:
        return None

    _void.reads, _void.writes, _void.fresh_weights, _void.waits_outside_gil = (), (), False, False
    return _void
