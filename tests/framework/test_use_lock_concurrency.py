"""`task.use(fn, lock=...)` in async mode, as DI-engine's: middlewares of one step that hold
different locks run at once, those sharing a lock one after another in registration order."""
import threading

from ding.framework import task


def test_async_middlewares_under_different_locks_run_at_once_and_a_shared_lock_keeps_order():
    own_lock = threading.Lock()
    other_started = threading.Event()
    order = []

    def first(ctx):
        # the next middleware holds another lock: it must start while this one still runs
        assert other_started.wait(10), 'a middleware under another lock did not run meanwhile'
        order.append('first')

    def other(ctx):
        other_started.set()
        order.append('other')

    def last(ctx):
        order.append('last')

    with task.start(async_mode=True):
        task.use(first, lock=own_lock).use(other, lock=True).use(last, lock=own_lock)
        task.run(1)
    assert order.index('other') < order.index('first') < order.index('last')


def test_sync_mode_runs_locked_middlewares_in_order():
    order = []
    with task.start():
        task.use(lambda ctx: order.append(1), lock=True).use(lambda ctx: order.append(2), lock=threading.Lock())
        task.run(2)
    assert order == [1, 2, 1, 2]
