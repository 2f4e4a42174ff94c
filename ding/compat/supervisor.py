"""DI-engine's `ding.framework.supervisor`: a `Supervisor` that runs objects in child threads or
processes and calls their methods by message (`send` a `SendPayload`, `recv` / `recv_all` the
`RecvPayload`s), and `EnvSupervisor` (ding/compat/env_supervisor.py, loaded on first
use so that a supervisor alone does not import the envs).

    sup = Supervisor(ChildType.PROCESS)
    sup.register(lambda: Counter())          # one child per register()
    sup.start_link()
    req = SendPayload(proc_id=0, method='add', args=[2])
    sup.send(req)
    sup.recv_all([req])[0].data              # or sup.recv(); sup.value -> [each child's .value]
    sup.shutdown()
"""
import multiprocessing
import queue
from typing import Any, Callable, Dict, List, Optional, Union

from ding.compat.supervisor_children import Child, ChildProcess, ChildThread
from ding.compat.supervisor_payloads import ChildType, RecvPayload, ReserveMethod, SendPayload

__all__ = ['ChildType', 'SendPayload', 'RecvPayload', 'ReserveMethod', 'Child', 'ChildThread', 'ChildProcess',
           'Supervisor', 'EnvSupervisor']


class Supervisor:
    """Children of one `ChildType`, numbered 0, 1, ... in `register` order; one outbox all of
    them answer into. `mp_ctx`: the multiprocessing context of process children (default
    forkserver, as our subprocess env manager: a child never inherits this process's threads)."""
    TYPE_MAPPING = {ChildType.PROCESS: ChildProcess, ChildType.THREAD: ChildThread}

    def __init__(self, type_: ChildType, mp_ctx: Any = None) -> None:
        self._type = ChildType(type_)
        self._mp_ctx = mp_ctx or multiprocessing.get_context('forkserver')
        self._children: List[Child] = []
        self._running = False
        self._outbox = None

    def register(self, init: Union[Callable, Any], shm_buffer: Any = None,
                 shm_callback: Optional[Callable] = None) -> None:
        """Add a child serving `init()` (or `init` itself when it is not callable)."""
        self._children.append(self.TYPE_MAPPING[self._type](len(self._children), init, shm_buffer=shm_buffer,
                                                            shm_callback=shm_callback, mp_ctx=self._mp_ctx))

    def start_link(self) -> None:
        """Start every child (once; again after `shutdown`)."""
        if self._running:
            return
        self._outbox = self._mp_ctx.Queue() if self._type is ChildType.PROCESS else queue.Queue()
        for child in self._children:
            child.start(self._outbox)
        self._running = True

    def _check_running(self) -> None:
        if not self._running:
            raise RuntimeError(f'{type(self).__name__} is not running: call start_link() first')

    def send(self, payload: SendPayload) -> None:
        self._check_running()
        self._children[payload.proc_id].send(payload)

    def recv(self, ignore_err: bool = False, timeout: Optional[float] = None) -> RecvPayload:
        """The next answer of any child; raises its `err` unless `ignore_err`, and `queue.Empty`
        after `timeout` seconds (None: wait)."""
        self._check_running()
        payload = self._outbox.get(timeout=timeout)
        if payload.err is not None and not ignore_err:
            raise payload.err
        return payload

    def recv_all(self, send_payloads: List[SendPayload], ignore_err: bool = False, callback: Optional[Callable] = None,
                 timeout: Optional[float] = None) -> List[RecvPayload]:
        """The answers to `send_payloads`, in their order. Answers to other requests that
        arrive meanwhile are put back. `callback(payload, remaining)` sees each answer and may
        add requests to `remaining` ({req_id: SendPayload}) to wait for them too. An answer
        with `err` raises it, and no answer within `timeout` seconds raises TimeoutError;
        with `ignore_err` both come back as payloads with `err` set instead."""
        if not send_payloads:
            raise ValueError('recv_all needs at least one request to wait for')
        self._check_running()
        remaining: Dict[str, SendPayload] = {p.req_id: p for p in send_payloads}
        got: Dict[str, RecvPayload] = {}
        others = []
        try:
            while remaining:
                try:
                    payload = self._outbox.get(timeout=timeout)
                except queue.Empty:
                    if not ignore_err:
                        raise TimeoutError(f'{type(self).__name__}: no answer within {timeout} s to requests '
                                           f'{sorted(remaining)}') from None
                    for req_id, sent in list(remaining.items()):
                        del remaining[req_id]
                        got[req_id] = RecvPayload(proc_id=sent.proc_id, req_id=req_id, method=sent.method,
                                                  err=TimeoutError(f'no answer within {timeout} s to {req_id}'))
                        if callback:
                            callback(got[req_id], remaining)
                    continue
                if payload.req_id not in remaining:
                    others.append(payload)
                    continue
                del remaining[payload.req_id]
                got[payload.req_id] = payload
                if payload.err is not None and not ignore_err:
                    raise payload.err
                if callback:
                    callback(payload, remaining)
        finally:
            for payload in others:
                self._outbox.put(payload)
        return [got[p.req_id] for p in send_payloads if p.req_id in got]

    def get_child_attr(self, proc_id: int, key: str) -> Any:
        """Attribute `key` of child `proc_id`'s object."""
        payload = SendPayload(proc_id=proc_id, method=ReserveMethod.GETATTR, args=[key])
        self.send(payload)
        return self.recv_all([payload])[0].data

    def __getattr__(self, key: str) -> List[Any]:
        """`sup.name`: attribute `name` of every child's object, in child order."""
        if key.startswith('_'):
            raise AttributeError(key)
        self._check_running()
        sent = [SendPayload(proc_id=i, method=ReserveMethod.GETATTR, args=[key]) for i in range(len(self._children))]
        for payload in sent:
            self.send(payload)
        return [p.data for p in self.recv_all(sent)]

    def shutdown(self, timeout: Optional[float] = None) -> None:
        """Stop every child (each gets `timeout` seconds to finish its call) and drop unread answers."""
        if not self._running:
            return
        for child in self._children:
            child.shutdown(timeout)
        if hasattr(self._outbox, 'close'):
            self._outbox.close()
        self._outbox = None
        self._running = False

    def __del__(self) -> None:
        try:
            self.shutdown(timeout=1)
        except Exception:  # noqa: BLE001 - interpreter teardown: the children are daemons anyway
            pass


def __getattr__(name: str) -> Any:
    if name == 'EnvSupervisor':
        from ding.compat.env_supervisor import EnvSupervisor
        return EnvSupervisor
    raise AttributeError(f"module 'ding.framework.supervisor' has no attribute {name!r}")
