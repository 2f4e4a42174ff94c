"""A node's router holds events its program has no handler for yet, in order, until one is
registered; only once the node's pipeline runs (`task.run()`) and `grace_s` has passed does it
drop events nobody listens to. Before, the clock started at `task.start()`: a learner slow to
build its envs and policy on a loaded machine dropped the collectors' first data, and the DI-engine
example under ditask waited forever (CI, 2026-11-29). No Ray is started: delivery is called
directly, as the node actor's lane does."""
import time

from ding.framework.distributed.ray_router import RayRouter


class Bus:
    """The task's event bus, as the router sees it: `emit` delivers, `has_handlers` tells."""

    def __init__(self) -> None:
        self.handled, self.got = set(), []

    def emit(self, event, *args, **kwargs):
        self.got.append((event, args))

    def has_handlers(self, event):
        return event in self.handled


def wait_for(condition, timeout_s=5.0):
    deadline = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_events_are_held_while_the_program_builds_its_pipeline_however_long():
    router, bus = RayRouter(0, grace_s=0.05), Bus()
    try:
        router.start(bus.emit)
        time.sleep(0.2)  # the program is still making envs and a policy: far past the grace
        router.receive(2, 'collector_data', (1, ), {})
        router.receive(2, 'collector_data', (2, ), {})
        time.sleep(0.2)
        assert router.ignored == {} and bus.got == []
        bus.handled.add('collector_data')  # task.use(...) of the learner's exchanger
        assert wait_for(lambda: len(bus.got) == 2)
        assert bus.got == [('collector_data', (1, )), ('collector_data', (2, ))]  # in order
    finally:
        router._retry_stop = True


def test_once_the_pipeline_runs_events_nobody_listens_to_are_dropped_and_counted():
    router, bus = RayRouter(0, grace_s=0.05), Bus()
    try:
        router.start(bus.emit)
        router.receive(3, 'other_collector_data', (1, ), {})
        router.running()  # task.run()
        assert wait_for(lambda: router.ignored == {'other_collector_data': 1})
        router.receive(3, 'other_collector_data', (2, ), {})
        assert router.ignored == {'other_collector_data': 2} and bus.got == []
    finally:
        router._retry_stop = True
