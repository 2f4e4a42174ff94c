import threading

import pytest

from ding.framework import LocalRouter, Router, task
from ding.framework.events import EventBus
from ding.framework.roles import Role


def test_on_once_off_emit(fresh_task):
    got = []
    with task.start():
        task.on('ev', lambda *a, **k: got.append(('on', a, k)))
        task.once('ev', lambda *a, **k: got.append(('once', a, k)))
        task.emit('ev', 1, x=2)
        task.emit('ev', 3)
        assert got == [('on', (1, ), {'x': 2}), ('once', (1, ), {'x': 2}), ('on', (3, ), {})]
        task.off('ev')
        task.emit('ev', 4)
        assert len(got) == 3


def test_off_removes_one_handler(fresh_task):
    got = []

    def a(v):
        got.append(('a', v))

    def b(v):
        got.append(('b', v))

    with task.start():
        task.on('ev', a)
        task.on('ev', b)
        task.off('ev', a)
        task.emit('ev', 1)
    assert got == [('b', 1)]


def test_only_remote_skips_local_handlers_when_not_distributed(fresh_task):
    got = []
    with task.start():
        task.on('ev', got.append)
        task.emit('ev', 1, only_remote=True)
        task.emit('ev', 2, only_local=True)
    assert got == [2]


def test_wait_for_returns_args_from_another_thread(fresh_task):
    with task.start():
        timer = threading.Timer(0.05, lambda: task.emit('ready', 7, name='x'))
        timer.start()
        assert task.wait_for('ready', timeout=10) == ((7, ), {'name': 'x'})
        timer.join()


def test_wait_for_timeout(fresh_task):
    with task.start():
        assert task.wait_for('never', timeout=0.01) is None
        with pytest.raises(TimeoutError, match='never'):
            task.wait_for('never', timeout=0.01, ignore_timeout_exception=False)


def test_stop_releases_waiters(fresh_task):
    result = []
    with task.start():
        waiter = threading.Thread(target=lambda: result.append(task.wait_for('never')))
        waiter.start()
        threading.Event().wait(0.05)
    waiter.join(timeout=10)
    assert not waiter.is_alive()
    assert result == [None]


def test_roles(fresh_task):
    with task.start():
        assert task.role is Role
        assert task.roles == set()
        assert all(task.has_role(r) for r in Role)  # no role: a standalone node does everything
        task.add_role(task.role.LEARNER)
        assert task.roles == {Role.LEARNER}
        assert task.has_role(task.role.LEARNER)
        assert not task.has_role(task.role.COLLECTOR)
        assert [r.value for r in Role] == ['learner', 'collector', 'evaluator', 'fetcher']
    with task.start():
        assert task.roles == set()


def test_labels(fresh_task):
    with task.start(labels={'node.3', 'gpu'}):
        assert task.labels == {'node.3', 'gpu', 'sync', 'standalone'}
        assert task.match_labels('node.*')
        assert task.match_labels(['cpu', 'gpu'])
        assert not task.match_labels('distributed')
    with task.start(async_mode=True):
        assert task.labels == {'async', 'standalone'}


def test_router_is_an_inactive_local_router(fresh_task):
    assert isinstance(task.router, LocalRouter) and isinstance(task.router, Router)
    assert task.router.is_active is False
    assert task.router.node_id is None
    assert task.router.labels == set()


def test_an_active_router_gets_remote_emits_and_delivers_events(fresh_task):

    class FakeRouter(Router):
        is_active = True
        node_id = 1

        def __init__(self):
            super().__init__()
            self.sent, self.deliver, self.stopped = [], None, False

        def start(self, deliver):
            self.deliver = deliver

        def emit(self, event, *args, **kwargs):
            self.sent.append((event, args, kwargs))

        def stop(self):
            self.stopped = True

    got, router = [], FakeRouter()
    task.router = router
    try:
        with task.start():
            assert 'distributed' in task.labels
            task.on('weights', got.append)
            task.emit('weights', 1)
            task.emit('weights', 2, only_local=True)
            router.deliver('weights', 3)  # an event arriving from another node
        assert router.sent == [('weights', (1, ), {})]
        assert got == [1, 2, 3]
        assert router.stopped
    finally:
        task.router = LocalRouter()


def test_a_wait_whose_on_listening_raises_leaves_no_handler():
    bus = EventBus()

    def fail():
        raise RuntimeError('hand-on failed')

    with pytest.raises(RuntimeError, match='hand-on failed'):
        bus.wait_for('ready', timeout=1, on_listening=fail)
    assert not bus.has_handlers('ready')
