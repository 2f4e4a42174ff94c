import logging

import pytest

from ding.framework import task
from ding.framework.contract import contract
from ding.framework.wrapper import StepTimer


class FakeClock:
    """Each reading advances by `tick` seconds, so every timed part lasts exactly one tick."""

    def __init__(self, tick):
        self.now, self.tick = 0.0, tick

    def __call__(self):
        self.now += self.tick
        return self.now


def test_step_timer_records_each_middleware(fresh_task, caplog):

    def plain(ctx):
        pass

    def onion(ctx):
        yield

    timer = StepTimer(print_per_step=2, smooth_window=3, clock=FakeClock(0.5))
    with caplog.at_level(logging.INFO, logger='ding.framework.wrapper.step_timer'):
        with task.start():
            task.use(contract(plain, reads=('total_step', )))
            task.use_wrapper(timer)
            task.use(onion)
            task.run(5)
    # plain: one timed part per step (0.5 s); onion: forward + backward parts (1.0 s)
    assert {name: list(v) for name, v in timer.records.items()} == {'plain': [0.5] * 3, 'onion': [1.0] * 3}
    assert timer.mean('onion') == 1.0
    assert task.middlewares[0].reads == ('total_step', )
    lines = [r.getMessage() for r in caplog.records if 'step timer' in r.getMessage()]
    assert len(lines) == 6  # steps 0, 2, 4 for both middlewares
    assert lines[0] == '[step timer] plain: 500.000 ms (std 0.000 ms, last 1 steps)'


def test_step_timer_rejects_bad_arguments():
    with pytest.raises(ValueError):
        StepTimer(print_per_step=0)
