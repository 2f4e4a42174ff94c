"""The progress line's ETA: none against DI-engine's 1e10 "no bound", rounded up (steps left
never read 0:00:00), and not from the first step (start-up and the random warm-up)."""
import io

import pytest

from ding.framework.context import OnlineRLContext
from ding.framework.middleware import _common, progress
from ding.framework.middleware.progress import format_status, progress_reporter


def test_a_1e10_budget_is_no_bound():
    assert format_status(3000, 2000.0, 700, None, int(1e10)) == \
        'env_step 3,000 | 2,000 steps/s | train_iter 700 | eval -'


def test_steps_left_never_read_zero():
    assert format_status(1280, 2030.0, 320, 196.1, 3000).endswith('ETA 0:00:01')  # 0.85 s left
    assert format_status(3072, 2030.0, 768, 196.1, 3000).endswith('ETA 0:00:00')  # done
    assert format_status(10, 0.0, 0, None, 3000).endswith('ETA -')  # no rate yet


class _Task:
    finish = False


def test_the_first_step_warm_up_gives_no_eta(tmp_path, monkeypatch):
    """A warm-up of 1,000 random steps in 0.1 s, then 32 steps per 0.1 s of training."""
    monkeypatch.setattr(_common, 'current_task', lambda: _Task)
    now = [100.0]
    monkeypatch.setattr(progress.time, 'perf_counter', lambda: now[0])
    stream = io.StringIO()
    reporter = progress_reporter(str(tmp_path), max_env_step=100_000, stream=stream, print_every_s=0.0)
    ctx = OnlineRLContext()
    for env_step in [1000] + list(range(1032, 1032 + 32 * 20, 32)):
        gen = reporter(ctx)
        next(gen)
        now[0] += 0.1
        ctx.env_step, ctx.train_iter = env_step, env_step // 4
        with pytest.raises(StopIteration):
            next(gen)
        ctx = ctx.renew()
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith('env_step 1,000/100,000 | 10,000 steps/s') and lines[0].endswith('ETA -')
    # 320 steps/s of training: 98,360 steps left at the last line, 307.4 s
    assert lines[-1].endswith('ETA 0:05:08'), lines[-1]
