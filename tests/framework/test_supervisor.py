"""DI-engine's `ding.framework.supervisor.Supervisor`: objects in child threads / processes,
called by message; answers paired with requests, errors and timeouts handed back."""
import os
import queue
import time

import pytest

from ding.framework import Supervisor
from ding.framework.supervisor import ChildType, RecvPayload, SendPayload


class Counter:

    def __init__(self, start: int = 0) -> None:
        self.value = start

    def add(self, x: int) -> int:
        self.value += x
        return self.value

    def pid(self) -> int:
        return os.getpid()

    def fail(self) -> None:
        raise ValueError('failed on purpose')

    def sleep(self, seconds: float) -> float:
        time.sleep(seconds)
        return seconds


def started(type_: ChildType, starts=(0, 10)) -> Supervisor:
    sup = Supervisor(type_)
    for s in starts:
        sup.register(lambda s=s: Counter(s))
    sup.start_link()
    return sup


def call(sup: Supervisor, proc_id: int, method: str, *args) -> SendPayload:
    payload = SendPayload(proc_id=proc_id, method=method, args=list(args))
    sup.send(payload)
    return payload


def test_thread_children_answer_in_request_order_and_hand_back_errors():
    sup = started(ChildType.THREAD)
    try:
        reqs = [call(sup, 1, 'add', 5), call(sup, 0, 'add', 2)]
        answers = sup.recv_all(reqs)
        assert [(a.proc_id, a.data) for a in answers] == [(1, 15), (0, 2)]
        assert sup.value == [2, 15] and sup.get_child_attr(1, 'value') == 15
        # an answer to another request waits for recv(); recv_all takes only its own
        other, mine = call(sup, 0, 'add', 1), call(sup, 1, 'add', 1)
        assert sup.recv_all([mine])[0].data == 16
        assert sup.recv().req_id == other.req_id
        # a call that raises: raised by recv_all / recv, or handed back with ignore_err
        failing = call(sup, 0, 'fail')
        with pytest.raises(ValueError, match='on purpose'):
            sup.recv_all([failing])
        failing = call(sup, 1, 'fail')
        got = sup.recv_all([failing], ignore_err=True)[0]
        assert isinstance(got.err, ValueError) and got.data is None
        # the callback may add requests to wait for
        seen = []

        def chain(payload: RecvPayload, remaining: dict) -> None:
            seen.append(payload.data)
            if len(seen) == 1:
                extra = call(sup, 0, 'add', 100)
                remaining[extra.req_id] = extra

        sup.recv_all([call(sup, 0, 'add', 0)], callback=chain)
        assert seen == [3, 103]
        # no answer in time: TimeoutError, or a payload carrying it with ignore_err
        with pytest.raises(TimeoutError):
            sup.recv_all([call(sup, 0, 'sleep', 0.2)], timeout=0.02)
        late = sup.recv(timeout=2)  # the slow call still answers
        assert late.data == 0.2
        got = sup.recv_all([call(sup, 1, 'sleep', 0.2)], ignore_err=True, timeout=0.02)[0]
        assert isinstance(got.err, TimeoutError) and got.proc_id == 1
        with pytest.raises(queue.Empty):
            sup.recv(timeout=0.01)
        sup.recv(timeout=2)
    finally:
        sup.shutdown()
    with pytest.raises(RuntimeError, match='start_link'):
        sup.send(SendPayload(proc_id=0, method='add', args=[1]))


@pytest.mark.slow  # starts two processes (~1 s)
def test_process_children_run_elsewhere_and_restart_fresh():
    sup = started(ChildType.PROCESS, starts=(0, 1))
    try:
        pids = [a.data for a in sup.recv_all([call(sup, i, 'pid') for i in range(2)])]
        assert os.getpid() not in pids and len(set(pids)) == 2
        assert sup.recv_all([call(sup, 1, 'add', 4)])[0].data == 5
        with pytest.raises(ValueError, match='on purpose'):
            sup.recv_all([call(sup, 0, 'fail')], timeout=10)
        assert sup.value == [0, 5]  # the failing child kept serving
        sup._children[1].restart()
        assert sup.get_child_attr(1, 'value') == 1  # a fresh Counter(1)
        call(sup, 0, 'sleep', 30)  # stuck: shutdown does not wait for it
        start = time.monotonic()
    finally:
        sup.shutdown(timeout=0.5)
    assert time.monotonic() - start < 10
