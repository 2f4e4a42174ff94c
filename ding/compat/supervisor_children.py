"""The children a `Supervisor` (supervisor.py) runs: one object each, in a thread or a process,
serving method calls that arrive as `SendPayload`s and answering with `RecvPayload`s.

A call that raises answers with the exception in `err` (the child goes on serving); a
process child's object is built in the child from a cloudpickled `init` (lambdas work).
"""
import queue
import threading
from typing import Any, Callable, Optional, Union

from ding.compat.supervisor_payloads import RecvPayload, ReserveMethod, SendPayload


def serve(proc_id: int, init: Union[Callable, Any], inbox: Any, outbox: Any,
          shm_buffer: Any = None, shm_callback: Optional[Callable] = None) -> None:
    """The child's loop: build the object (`init()` when callable), then answer calls until
    a SHUTDOWN payload arrives."""
    target = init() if callable(init) else init
    while True:
        payload: SendPayload = inbox.get()
        if payload.method == ReserveMethod.SHUTDOWN:
            return
        reply = RecvPayload(proc_id=proc_id, req_id=payload.req_id, method=payload.method)
        try:
            if payload.method == ReserveMethod.GETATTR:
                reply.data = getattr(target, payload.args[0])
            else:
                reply.data = getattr(target, payload.method)(*payload.args, **payload.kwargs)
            if shm_callback is not None and shm_buffer is not None:
                shm_callback(reply, shm_buffer)
        except Exception as err:  # noqa: BLE001 - handed to the supervisor, which decides
            reply.data, reply.err = None, err
        outbox.put(reply)


def _serve_pickled(proc_id: int, init_bytes: bytes, inbox: Any, outbox: Any, shm_buffer: Any,
                   shm_callback_bytes: Optional[bytes]) -> None:
    import cloudpickle
    callback = cloudpickle.loads(shm_callback_bytes) if shm_callback_bytes else None
    serve(proc_id, cloudpickle.loads(init_bytes), inbox, outbox, shm_buffer, callback)


class Child:
    """One served object; `start(outbox)` runs it, `send(payload)` calls it."""

    def __init__(self, proc_id: int, init: Union[Callable, Any], shm_buffer: Any = None,
                 shm_callback: Optional[Callable] = None, mp_ctx: Any = None, **kwargs: Any) -> None:
        self._proc_id, self._init = proc_id, init
        self._shm_buffer, self._shm_callback, self._mp_ctx = shm_buffer, shm_callback, mp_ctx
        self._inbox = self._outbox = None

    def restart(self) -> None:
        """A fresh object from `init` (its state is lost), answering to the same outbox."""
        outbox = self._outbox
        self.shutdown()
        self.start(outbox)

    def send(self, payload: SendPayload) -> None:
        if self._inbox is None:
            raise RuntimeError(f'child {self._proc_id} is not running: start_link() the supervisor first')
        self._inbox.put(payload)

    @property
    def running(self) -> bool:
        return self._inbox is not None


class ChildThread(Child):

    def start(self, outbox: Any) -> None:
        if self._inbox is not None:
            return
        self._outbox, self._inbox = outbox, queue.Queue()
        self._thread = threading.Thread(target=serve, name=f'supervisor-child-{self._proc_id}', daemon=True,
                                        args=(self._proc_id, self._init, self._inbox, outbox, self._shm_buffer,
                                              self._shm_callback))
        self._thread.start()

    def shutdown(self, timeout: Optional[float] = None) -> None:
        if self._inbox is None:
            return
        self._inbox.put(SendPayload(proc_id=self._proc_id, method=ReserveMethod.SHUTDOWN))
        self._thread.join(timeout)  # a thread stuck in a call cannot be stopped; it is a daemon
        self._inbox = None


class ChildProcess(Child):

    def start(self, outbox: Any) -> None:
        if self._inbox is not None:
            return
        import cloudpickle
        self._outbox, self._inbox = outbox, self._mp_ctx.Queue()
        callback = cloudpickle.dumps(self._shm_callback) if self._shm_callback is not None else None
        self._process = self._mp_ctx.Process(
            target=_serve_pickled, name=f'supervisor-child-{self._proc_id}', daemon=True,
            args=(self._proc_id, cloudpickle.dumps(self._init), self._inbox, outbox, self._shm_buffer, callback))
        self._process.start()

    def shutdown(self, timeout: Optional[float] = None) -> None:
        if self._inbox is None:
            return
        self._inbox.put(SendPayload(proc_id=self._proc_id, method=ReserveMethod.SHUTDOWN))
        self._process.join(timeout if timeout is not None else 5.0)
        if self._process.is_alive():  # stuck in a call: it does not get to finish it
            self._process.terminate()
            self._process.join()
        self._process.close()
        self._inbox.close()
        self._inbox = None
