"""Run bookkeeping: `final_ctx_saver` (the final counters as JSON) and `epoch_timer`."""
import logging
import math
import os
import time
from collections import deque
from typing import Any, Dict

from ding.framework.contract import contract
from ding.framework.middleware import _common
from ding.utils.fileio import atomic_write_json

logger = logging.getLogger('ding.timer')
COUNTERS = ('total_step', 'env_step', 'env_episode', 'trained_env_step', 'train_epoch', 'train_iter', 'last_eval_iter',
            'last_eval_value', 'eval_value', 'env_restarts', 'dropped_episodes', 'eval_env_restarts',
            'eval_dropped_episodes')


def final_counters(ctx: Any) -> Dict[str, Any]:
    """The counters a run ends with; non-finite values (never evaluated) become None."""
    out = {}
    for name in COUNTERS:
        if hasattr(ctx, name):
            value = getattr(ctx, name)
            if isinstance(value, float) and not math.isfinite(value):
                value = None
            out[name] = value
    return out


def final_ctx_saver(name: str) -> Any:
    """Writes `<name>/final_ctx.json` (atomically) when the task finishes."""
    path = os.path.join(name, 'final_ctx.json')

    def _save(ctx: Any):
        yield
        if _common.current_task().finish:
            atomic_write_json(path, final_counters(ctx))

    return contract(_save, reads=('train_iter', ))  # the other counters are written when the ctx has them


def epoch_timer(print_per: int = 1, smooth_window: int = 10) -> Any:
    """Times each step (from this middleware's start to the end of the step) and logs the
    mean over the last `smooth_window` steps every `print_per` steps."""
    times = deque(maxlen=smooth_window)
    count = [0]

    def _timer(ctx: Any):
        start = time.perf_counter()
        yield
        times.append(time.perf_counter() - start)
        count[0] += 1
        if count[0] % print_per == 0:
            logger.info('step %d: %.2f ms (mean of last %d)', count[0], 1000 * sum(times) / len(times), len(times))

    return contract(_timer)
