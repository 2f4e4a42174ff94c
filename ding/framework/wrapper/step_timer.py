"""`StepTimer`: a `task.use_wrapper` wrapper logging how long each middleware takes per step.

Times include a generator middleware's backward part. Kept per middleware over the last
`smooth_window` steps; logged (mean and std, ms) every `print_per_step` steps.
"""
import logging
import statistics
import threading
import time
from collections import deque
from typing import Any, Callable, Deque, Dict

from ding.framework.contract import inherit_contract, middleware_name
from ding.framework.onion import finish_middleware, start_middleware

logger = logging.getLogger(__name__)


class StepTimer:

    def __init__(self, print_per_step: int = 1, smooth_window: int = 10,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        if print_per_step < 1 or smooth_window < 1:
            raise ValueError('print_per_step and smooth_window must be >= 1')
        self.print_per_step = print_per_step
        self.smooth_window = smooth_window
        self._clock = clock
        self._lock = threading.Lock()
        self.records: Dict[str, Deque[float]] = {}

    def __call__(self, fn: Callable) -> Callable:
        name = middleware_name(fn)
        with self._lock:
            window = self.records.setdefault(name, deque(maxlen=self.smooth_window))
        clock = self._clock

        def _timed(ctx: Any):
            begin = clock()
            gen = start_middleware(fn, ctx)
            spent = clock() - begin
            if gen is not None:
                yield
                begin = clock()
                finish_middleware(gen)
                spent += clock() - begin
            window.append(spent)
            if ctx.total_step % self.print_per_step == 0:
                self._log(name, window)

        return inherit_contract(_timed, fn)

    def mean(self, name: str) -> float:
        """Mean seconds per step of middleware `name` over the window."""
        return statistics.fmean(self.records[name])

    def _log(self, name: str, window: Deque[float]) -> None:
        values = list(window)
        std = statistics.pstdev(values) if len(values) > 1 else 0.0
        logger.info('[step timer] %s: %.3f ms (std %.3f ms, last %d steps)', name,
                    1e3 * statistics.fmean(values), 1e3 * std, len(values))
