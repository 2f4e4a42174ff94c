import threading

import pytest

from ding.framework import Context, OnlineRLContext, Parallel, Task, task


def recorder(log, name):

    def _mw(ctx):
        log.append((ctx.total_step, name))

    return _mw


def onion(log, name):

    def _mw(ctx):
        log.append(f'{name}>')
        yield
        log.append(f'<{name}')

    return _mw


def test_run_3_counts_steps(fresh_task):
    log = []
    with task.start():
        assert task.running
        assert isinstance(task.ctx, Context)
        task.use(recorder(log, 'a')).use(recorder(log, 'b'))
        task.run(3)
        assert task.ctx.total_step == 2
        assert task.finish is True
    assert not task.running
    assert log == [(0, 'a'), (0, 'b'), (1, 'a'), (1, 'b'), (2, 'a'), (2, 'b')]


def test_start_resets_middleware_and_uses_given_ctx(fresh_task):
    with task.start():
        task.use(recorder([], 'old'))
    ctx = OnlineRLContext()
    with task.start(ctx=ctx):
        assert task.middlewares == ()
        assert task.ctx is ctx
        assert task.finish is False


def test_run_needs_start(fresh_task):
    task.stop()
    with pytest.raises(RuntimeError, match='task.start'):
        task.run(1)


def test_generator_middlewares_follow_the_onion_order(fresh_task):
    log = []
    with task.start():
        task.use(onion(log, 'a')).use(recorder(log, 'b')).use(onion(log, 'c'))
        task.run(2)
    step = ['a>', (0, 'b'), 'c>', '<c', '<a']
    assert log == step + ['a>', (1, 'b'), 'c>', '<c', '<a']


def test_finish_ends_run_after_the_current_step(fresh_task):
    log = []

    def stopper(ctx):
        if ctx.total_step == 1:
            task.finish = True

    with task.start():
        task.use(stopper).use(recorder(log, 'after'))
        task.run(10)
        assert task.ctx.total_step == 1
    assert log == [(0, 'after'), (1, 'after')]


def test_end_finishes_the_run_and_keeps_the_first_reason_until_the_next_start(fresh_task):
    from ding.framework.middleware import termination_checker

    def budget_then_more(ctx):
        if ctx.total_step == 2:
            task.end('a later reason')

    with task.start(ctx=OnlineRLContext()):
        task.use(termination_checker(max_train_iter=0)).use(budget_then_more)
        task.run(10)
        assert task.finish and task.ctx.total_step == 0
        assert task.finish_reason == 'max_train_iter 0 reached'
    with task.start():
        assert task.finish_reason is None and not task.finish
        task.use(budget_then_more)
        task.run(10)
        assert task.ctx.total_step == 2 and task.finish_reason == 'a later reason'


def test_kept_counters_across_steps(fresh_task):

    def collector(ctx):
        ctx.env_step += 8

    def learner(ctx):
        ctx.train_iter += 2
        ctx.train_output = ctx.train_iter

    with task.start(ctx=OnlineRLContext()):
        task.use(collector).use(learner)
        task.run(5)
        assert (task.ctx.env_step, task.ctx.train_iter, task.ctx.train_output) == (40, 10, 10)


def test_use_wrapper_wraps_earlier_and_later_middlewares(fresh_task):
    log = []

    def tag(fn):

        def _wrapped(ctx):
            log.append('wrap')
            return fn(ctx)

        return _wrapped

    with task.start():
        task.use(recorder(log, 'a'))
        task.use_wrapper(tag)
        task.use(recorder(log, 'b'))
        task.run(1)
    assert log == ['wrap', (0, 'a'), 'wrap', (0, 'b')]


def test_wrap_runs_an_inner_middleware_inline(fresh_task):
    log = []
    inner_called = task.wrap(onion(log, 'inner'))
    inner_pending = task.wrap(onion(log, 'pending'))

    def outer(ctx):
        backward = inner_called(ctx)
        log.append('outer-mid')
        backward()
        backward()  # a second call is a no-op
        inner_pending(ctx)
        yield
        log.append('<outer')

    with task.start():
        task.use(outer).use(recorder(log, 'b'))
        task.run(1)
    # an inner middleware's pending backward part unwinds before its caller's (nested onion)
    assert log == ['inner>', 'outer-mid', '<inner', 'pending>', (0, 'b'), '<pending', '<outer']


def test_forward_backward_renew_by_hand(fresh_task):
    log = []
    with task.start(ctx=OnlineRLContext()):
        task.forward(onion(log, 'a'))
        other = OnlineRLContext(total_step=7)
        task.forward(recorder(log, 'b'), other)
        assert log == ['a>', (7, 'b')]
        task.backward()
        assert log[-1] == '<a'
        task.ctx.env_step = 3
        assert task.renew() is task
        assert (task.ctx.total_step, task.ctx.env_step) == (1, 3)


def test_serial_and_parallel_combine_middlewares(fresh_task):
    log = []
    with task.start():
        task.use(task.serial(onion(log, 'a'), onion(log, 'b')))
        task.run(1)
    assert log == ['a>', 'b>', '<b', '<a']

    seen = []
    barrier = threading.Barrier(2, timeout=5)

    def meet(name):

        def _mw(ctx):
            barrier.wait()  # both must be running at once, or this times out
            seen.append(name)
            yield
            seen.append('<' + name)

        return _mw

    with task.start():
        task.use(task.parallel(meet('x'), meet('y')))
        task.run(1)
    assert sorted(seen[:2]) == ['x', 'y']
    assert seen[2:] == ['<y', '<x']


def test_lock_gives_mutual_exclusion(fresh_task):
    inside, overlaps = [0], []

    def guarded(ctx):
        inside[0] += 1
        overlaps.append(inside[0])
        threading.Event().wait(0.01)
        inside[0] -= 1

    with task.start():
        task.use(task.parallel(*[task.wrap(guarded, lock=True) for _ in range(3)]))
        task.run(2)
    assert overlaps == [1] * 6


def test_exception_propagates_and_closes_pending_generators(fresh_task):
    log = []

    def tidy(ctx):
        try:
            yield
        finally:
            log.append('closed')

    def broken(ctx):
        raise ValueError('boom')

    with task.start():
        task.use(tidy).use(broken)
        with pytest.raises(ValueError, match='boom'):
            task.run(3)
    assert log == ['closed']


def test_yielding_twice_is_an_error(fresh_task):

    def twice(ctx):
        yield
        yield

    with task.start():
        task.use(twice)
        with pytest.raises(RuntimeError, match='yielded more than once'):
            task.run(1)


def test_void_and_parallel_outside_a_run(fresh_task):
    with task.start():
        task.use(task.void())
        task.run(2)
        assert task.ctx.total_step == 1
    assert Parallel() is task.router and not task.router.is_active  # DI-engine's singleton: this node's router
    assert callable(Parallel.runner(n_parallel_workers=2))  # launching is tests/distributed (Ray)


def test_task_is_a_task_and_a_context_manager():
    assert isinstance(task, Task)
    other = Task()
    with other.start() as started:
        assert started is other and other.running
    assert not other.running


def test_a_peers_finish_arriving_mid_unwind_is_seen_by_every_post_step_part(fresh_task):
    # A peer's finish comes on another thread at any moment. Here it lands after a checkpoint
    # saver's post-step part has looked (the saver is unwound first): that step must not be
    # the last, or the saver never writes its final checkpoint.
    seen = []

    def peer_finish_lands(ctx):
        yield
        if ctx.total_step == 1:
            task._remote_finish()

    def saver(ctx):
        yield
        seen.append((ctx.total_step, task.finish))

    with task.start():
        task.use(peer_finish_lands).use(saver)
        task.run(10)
    assert seen == [(0, False), (1, False), (2, True)]


def test_a_peers_finish_before_the_unwind_ends_that_step(fresh_task):
    seen = []

    def peer_finish_lands(ctx):
        if ctx.total_step == 1:
            task._remote_finish()
        yield
        seen.append((ctx.total_step, task.finish))

    with task.start():
        task.use(peer_finish_lands)
        task.run(10)
    assert seen == [(0, False), (1, True)]
