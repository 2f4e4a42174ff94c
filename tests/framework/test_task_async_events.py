"""Async mode and events: wait_for on a later middleware's event, errors release waiters,
forward/backward/sync driven by hand (DI-engine's task API)."""
import threading
import time

import pytest

from ding.framework import OnlineRLContext, task


def test_wait_for_an_event_a_later_middleware_emits(fresh_task):
    """DI-engine's own test_wait_for: step1 waits for what step2 of the same step emits."""
    greets = []

    def step1(ctx):
        greets.append((ctx.total_step, task.wait_for('greeting', timeout=30)[0][0]))

    def step2(ctx):
        task.emit('greeting', 'hi')

    with task.start(async_mode=True, n_async_workers=2):
        task.use(step1).use(step2)
        task.run(max_step=10)
    assert greets == [(s, 'hi') for s in range(10)]


def test_an_event_emitted_as_soon_as_the_step_is_handed_on_is_not_lost(fresh_task, monkeypatch):
    """The waiter listens before its step goes on to the next stage: here the next stage emits
    before the handing-on thread even returns (seen under load as a missed event and a timeout)."""
    from ding.framework.async_pipeline import AsyncPipeline
    hand_on = AsyncPipeline._hand_on

    def slow_hand_on(self, *args):
        cancelled = hand_on(self, *args)
        time.sleep(0.2)  # the next stage runs step2 meanwhile
        return cancelled

    monkeypatch.setattr(AsyncPipeline, '_hand_on', slow_hand_on)
    greets = []

    def step1(ctx):
        greets.append(task.wait_for('greeting', timeout=5)[0][0])

    with task.start(async_mode=True, n_async_workers=2):
        task.use(step1).use(lambda ctx: task.emit('greeting', 'hi'))
        task.run(max_step=2)
    assert greets == ['hi', 'hi']


def test_wait_for_timeout_raises_from_run(fresh_task):
    with task.start(async_mode=True):
        task.use(lambda ctx: task.wait_for('greeting', timeout=0.3, ignore_timeout_exception=False))
        with pytest.raises(TimeoutError, match='greeting'):
            task.run(max_step=1)


@pytest.mark.parametrize('where', ['later', 'earlier'])
def test_an_error_releases_a_stage_blocked_in_wait_for(fresh_task, where):
    released, waiting = [], threading.Event()

    def waiter(ctx):
        waiting.set()
        released.append(task.wait_for('never'))  # no timeout: only the error can release it

    # later: it fails in the step the waiter handed on; earlier: in the next step (max_lag=1)
    fail_at = 0 if where == 'later' else 1

    def broken(ctx):
        if ctx.total_step == fail_at:
            assert waiting.wait(10)
            raise ValueError('broken middleware')

    order = [waiter, broken] if where == 'later' else [broken, waiter]
    start = time.monotonic()
    with task.start(async_mode=True):
        for fn in order:
            task.use(fn)
        with pytest.raises(ValueError, match='broken middleware'):
            task.run(100)
    assert time.monotonic() - start < 10
    assert released == [None]


def test_kept_counters_exact_while_two_stages_share_a_step(fresh_task):
    """The waiting stage and the next one run on the same ctx at once: no increment counted twice."""

    def collector(ctx):
        ctx.env_step += 8
        task.wait_for('trained', timeout=30)
        ctx.env_step += 1

    def learner(ctx):
        ctx.train_iter += 2
        task.emit('trained')

    with task.start(async_mode=True, ctx=OnlineRLContext()):
        task.use(collector).use(learner)
        task.run(25)
        assert (task.ctx.env_step, task.ctx.train_iter) == (25 * 9, 25 * 2)


def test_forward_backward_sync_by_hand_in_async_mode(fresh_task):
    log = []

    def first(ctx):
        log.append(('waited', task.wait_for('go', timeout=30)[1]['n']))
        yield
        log.append('back-first')

    def second(ctx):
        task.emit('go', n=ctx.total_step)

    with task.start(async_mode=True, n_async_workers=2, ctx=OnlineRLContext()):
        assert task.forward(first) is task
        assert task.forward(second) is task
        assert task.sync() is task
        assert task.backward() is task
        task.sync()
        assert log == [('waited', 0), 'back-first']

        def broken(ctx):
            raise RuntimeError('by hand')

        task.forward(lambda ctx: task.wait_for('never')).forward(broken)
        with pytest.raises(RuntimeError, match='by hand'):
            task.sync()


def test_forward_and_backward_return_the_task_in_sync_mode(fresh_task):
    with task.start():
        assert task.forward(lambda ctx: None).backward() is task
        assert task.sync() is task
