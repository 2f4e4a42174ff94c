"""The one shared record of kept ctx fields in async mode.

Several steps are in flight at once, each with its own ctx object, so no single ctx can hold
the run's counters. Before a middleware runs, the ledger copies the newest kept values into
the step's ctx; afterwards it folds back what the middleware changed: integer fields
(`env_step`, `train_iter`, ...) as increments, so concurrent writers never lose an update;
any other kept field (`last_eval_value`, `wandb_url`, custom ones) by assignment, last
writer wins. (So an integer field should have one writing middleware, or only be bumped:
two stages each assigning absolute values to the same counter would add their changes.)

Two stages can run on the same ctx at once (a stage blocked in `task.wait_for` hands its step
on, see async_pipeline.py). They share one snapshot of that ctx, and each fold moves the
snapshot to what it folded, so neither counts the other's change.
"""
import numbers
import threading
from typing import Any, Callable, Dict

from ding.framework.context import Context


_UNSET = object()  # a kept custom name no middleware has set yet


def _is_count(value: Any) -> bool:
    # `type is int` first: the ABC check costs a microsecond, and this runs per kept field per step
    return type(value) is int or (isinstance(value, numbers.Integral) and not isinstance(value, bool))


class KeptLedger:

    def __init__(self, ctx: Context) -> None:
        self._lock = threading.Lock()
        # A kept custom name enters the record once some middleware sets it.
        self._values: Dict[str, Any] = {name: getattr(ctx, name) for name in ctx.kept_names if hasattr(ctx, name)}
        self._active: Dict[int, list] = {}  # id(ctx) -> [snapshot, calls running on it]

    def values(self) -> Dict[str, Any]:
        with self._lock:
            return dict(self._values)

    def load(self, ctx: Context) -> Dict[str, Any]:
        """Copy the newest kept values into `ctx`; returns them for `store`."""
        with self._lock:
            snapshot = dict(self._values)
        self._write(ctx, snapshot)
        return snapshot

    @staticmethod
    def _write(ctx: Context, snapshot: Dict[str, Any]) -> None:
        if not ctx._kept_set().issuperset(snapshot):  # a fresh step's ctx keeps them already
            ctx.keep(*snapshot)
        ctx.__dict__.update(snapshot)  # kept names are plain instance attributes (keep() refuses the rest)

    def store(self, ctx: Context, snapshot: Dict[str, Any]) -> None:
        """Fold the changes a middleware made to `ctx`'s kept fields back into the record."""
        with self._lock:
            self._fold(ctx, snapshot)

    def _fold(self, ctx: Context, snapshot: Dict[str, Any]) -> Dict[str, Any]:
        """Fold `ctx`'s changes since `snapshot` into the record; returns `ctx`'s kept values now."""
        current, attrs = {}, ctx.__dict__
        for name in ctx.iter_kept_names():
            new = attrs.get(name, _UNSET)
            if new is _UNSET:
                continue
            current[name] = new
            if name not in snapshot:
                self._values[name] = new
                continue
            old = snapshot[name]
            if new is old:
                continue
            if _is_count(new) and _is_count(old) and _is_count(self._values[name]):
                self._values[name] += new - old
            else:
                self._values[name] = new
        return current

    def run(self, ctx: Context, fn: Callable, *args: Any) -> Any:
        """`fn(*args)` between a load and a fold of `ctx` (the fold runs even on error)."""
        entry = self.begin(ctx)
        try:
            return fn(*args)
        finally:
            self.end(ctx, entry)

    def begin(self, ctx: Context) -> list:
        """Load the newest values into `ctx`, unless calls on it are running: then they share
        its snapshot. Between `begin` and `end` a step that runs alone (an inline step) may call
        its middlewares directly: nothing else can change the record meanwhile."""
        with self._lock:
            entry = self._active.get(id(ctx))
            if entry is None:
                entry = self._active[id(ctx)] = [dict(self._values), 0]
                self._write(ctx, entry[0])
            entry[1] += 1
        return entry

    def end(self, ctx: Context, entry: list) -> None:
        """Fold what changed on `ctx` since its snapshot, which moves to the current values."""
        with self._lock:
            entry[0] = self._fold(ctx, entry[0])
            entry[1] -= 1
            if entry[1] == 0:
                del self._active[id(ctx)]

    def new_ctx(self, template: Context, total_step: int, load: bool = True) -> Context:
        """A fresh ctx like the template (class, strict, declared names) carrying the current kept
        values (`load=False`: not yet, for a step whose `begin` loads them anyway)."""
        ctx = template.blank()
        if load:
            self.load(ctx)
        ctx.total_step = total_step
        return ctx
