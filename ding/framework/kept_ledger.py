"""The one shared record of kept ctx fields in async mode.

Several steps are in flight at once, each with its own ctx object, so no single ctx can hold
the run's counters. Before a middleware runs, the ledger copies the newest kept values into
the step's ctx; afterwards it folds back what the middleware changed: integer fields
(`env_step`, `train_iter`, ...) as increments, so concurrent writers never lose an update;
any other kept field (`last_eval_value`, `wandb_url`, custom ones) by assignment, last
writer wins. (So an integer field should have one writing middleware, or only be bumped:
two stages each assigning absolute values to the same counter would add their changes.)
"""
import numbers
import threading
from typing import Any, Callable, Dict

from ding.framework.context import Context


def _is_count(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


class KeptLedger:

    def __init__(self, ctx: Context) -> None:
        self._lock = threading.Lock()
        self._values: Dict[str, Any] = {name: getattr(ctx, name) for name in ctx.kept_names}

    def values(self) -> Dict[str, Any]:
        with self._lock:
            return dict(self._values)

    def load(self, ctx: Context) -> Dict[str, Any]:
        """Copy the newest kept values into `ctx`; returns them for `store`."""
        with self._lock:
            snapshot = dict(self._values)
        ctx.keep(*snapshot)
        for name, value in snapshot.items():
            object.__setattr__(ctx, name, value)
        return snapshot

    def store(self, ctx: Context, snapshot: Dict[str, Any]) -> None:
        """Fold the changes a middleware made to `ctx`'s kept fields back into the record."""
        with self._lock:
            for name in ctx.kept_names:
                new = getattr(ctx, name)
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

    def run(self, ctx: Context, fn: Callable, *args: Any) -> Any:
        """`fn(*args)` between a `load` and a `store` of `ctx` (the store runs even on error)."""
        snapshot = self.load(ctx)
        try:
            return fn(*args)
        finally:
            self.store(ctx, snapshot)

    def new_ctx(self, template: Context, total_step: int) -> Context:
        """A fresh ctx of the template's class carrying the current kept values."""
        ctx = type(template)()
        self.load(ctx)
        ctx.total_step = total_step
        return ctx
