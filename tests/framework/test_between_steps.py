"""`task.between_steps(fn)`: fn sees no step half done, in sync mode at once and in async mode
once the steps in flight completed, with the newest kept values; at the end of the run too."""
import threading

import pytest

from ding.framework import OnlineRLContext, task
from ding.framework.contract import contract


def busy_pipeline(every, seen, in_stage, lock):
    """saver -> collect -> push -> learn, the last three counting themselves in `in_stage`
    while they run; the saver asks for a between-steps callback every `every` steps, which
    records how many stages were busy then and the kept counters it was given."""

    def tracked(fn):

        def _mw(ctx):
            with lock:
                in_stage[0] += 1
            try:
                threading.Event().wait(0.001)  # leaves the GIL: the other stages run meanwhile
                fn(ctx)
            finally:
                with lock:
                    in_stage[0] -= 1

        return _mw

    def collect(ctx):
        ctx.env_step += 4

    def push(ctx):
        pass

    def learn(ctx):
        ctx.train_iter += 1

    def saver(ctx):  # registered first, as RunStateSaver: its post-yield part ends the step
        yield
        if ctx.total_step % every == every - 1:
            task.between_steps(lambda c: seen.append((in_stage[0], c.env_step, c.train_iter)))

    # the collector waits outside the GIL (as envs in a subprocess manager do): the steps overlap
    return [contract(saver, name='saver'),
            contract(tracked(collect), writes=('env_step', ), name='collect', waits_outside_gil=True),
            contract(tracked(push), name='push'),
            contract(tracked(learn), reads=('train_iter', ), writes=('train_iter', ), name='learn')]


@pytest.mark.parametrize('async_mode', [False, True])
def test_callbacks_run_with_no_stage_busy_and_the_newest_counters(fresh_task, async_mode):
    seen, in_stage, lock = [], [0], threading.Lock()
    with task.start(async_mode=async_mode, ctx=OnlineRLContext(), max_lag=2):
        for fn in busy_pipeline(5, seen, in_stage, lock):
            task.use(fn)
        task.run(40)
    assert len(seen) == 8
    for busy, env_step, train_iter in seen:
        assert busy == 0
        assert env_step == 4 * train_iter  # every step it counts was whole: collected and learned
    # in sync mode at the step that asked; in async mode a step or two later at the most
    for k, (_, _, train_iter) in enumerate(seen):
        assert 5 * (k + 1) <= train_iter <= 5 * (k + 1) + (0 if not async_mode else 2)


def test_a_callback_asked_for_by_the_last_step_runs_as_the_run_ends(fresh_task):
    seen = []

    def collect(ctx):
        ctx.env_step += 1

    def saver(ctx):
        yield
        if task.finish and not seen:
            seen.append('asked')
            task.between_steps(lambda c: seen.append((c.env_step, task.finish)))

    def stop(ctx):
        if ctx.env_step >= 6:
            task.finish = True

    with task.start(async_mode=True, ctx=OnlineRLContext()):
        task.use(saver).use(contract(collect, writes=('env_step', ))).use(contract(stop, reads=('env_step', )))
        task.run(100)
        final = task.ctx.env_step
    # the steps in flight at the finish completed first
    assert seen == ['asked', (final, True)] and final in (6, 7)


def test_what_a_callback_raises_ends_the_run_with_no_thread_left(fresh_task):

    def broken(ctx):
        raise KeyError('from between steps')

    def ask(ctx):
        yield
        if ctx.total_step == 3:
            task.between_steps(broken)

    ran = []
    with task.start(async_mode=True):
        task.use(ask).use(lambda ctx: ran.append(ctx.total_step))
        with pytest.raises(KeyError, match='from between steps'):
            task.run(100)
    # raised before step 3 + 2 (max_lag 1: steps 4 and 5 may have been fed by then)
    assert ran[:4] == [0, 1, 2, 3] and max(ran) <= 5
