"""The manager's side of env worker processes: start, signal, wait with a deadline, stop.

Why a separate piece: the fault handling (an env raising, a worker dying, a step running
past its timeout) is the same for every command and every manager mode, so it lives in
one place. A failure never raises out of `gather`; it comes back as a `WorkerFailure` so
that the manager decides what to restart and what to count.
"""
import math
import pickle
import select
import time
from multiprocessing.connection import wait
from typing import Any, Dict, Iterable, List, Optional, Sequence

from ding.envs.env_manager.subprocess_worker import EnvWorker, worker_main

STOP_GRACE_S = 1.0
_poll = getattr(select, 'poll', None)
_POLL_EVENTS = (select.POLLIN | select.POLLHUP | select.POLLERR) if _poll is not None else 0


class WorkerFailure:
    """Why a worker gave no valid answer: kind 'env' (an exception in an env), 'died'
    (the process exited) or 'timeout'. `env_id`: the global id of the env that raised, when
    the worker could tell."""

    def __init__(self, kind: str, text: str, env_id: Optional[int] = None) -> None:
        self.kind, self.text, self.env_id = kind, text, env_id

    def __repr__(self) -> str:
        return f'WorkerFailure({self.kind}: {self.text.strip().splitlines()[-1] if self.text else ""})'


class WorkerHandle:
    """One worker process and its pipe. Restarting = `stop()` then `start()`."""

    def __init__(self, mp_context: Any, env_fn_bytes: bytes, env_ids: Sequence[int],
                 worker_cls: type = EnvWorker) -> None:
        self._ctx = mp_context
        self._env_fn_bytes = env_fn_bytes
        self.env_ids = list(env_ids)
        self._worker_cls = worker_cls
        self.process = self.conn = None

    def start(self, timeout: Optional[float]) -> Any:
        """Start the process; return the spaces its first env reports (or a WorkerFailure)."""
        self.launch()
        return decode(gather([self], timeout)[self])

    def launch(self) -> None:
        """Start the process without waiting; its first reply carries the env spaces."""
        parent, child = self._ctx.Pipe()
        process = self._ctx.Process(target=worker_main, daemon=True, name=f'ding-env-worker-{self.env_ids[0]}',
                                    args=(child, self._env_fn_bytes, self.env_ids, self._worker_cls))
        try:
            process.start()
        except BaseException:
            parent.close()  # a process that never started has nothing to stop
            raise
        finally:
            child.close()  # so that the worker dying shows up as EOF on our end
        self.process, self.conn = process, parent

    def send(self, msg: bytes) -> Optional[WorkerFailure]:
        try:
            self.conn.send_bytes(msg)
        except (OSError, ValueError) as err:  # broken pipe: the worker is gone
            return WorkerFailure('died', f'worker of envs {self.env_ids} is gone: {err!r}')
        return None

    def request(self, command: str, payload: Any, timeout: Optional[float]) -> Any:
        """A control command; the result, or a WorkerFailure."""
        failure = self.send(pickle.dumps((command, payload)))
        return failure if failure is not None else decode(gather([self], timeout)[self])

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.is_alive()

    def stop(self, graceful: bool = True) -> None:
        """Ask the worker to close its envs (when `graceful`), then make sure it is gone."""
        if self.process is None:
            return
        if graceful and self.process.is_alive():
            if self.send(pickle.dumps(('close', None))) is None:
                self.process.join(STOP_GRACE_S)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(STOP_GRACE_S)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.process.close()
        self.conn.close()
        self.process = self.conn = None


def gather(handles: Iterable[WorkerHandle], timeout: Optional[float]) -> Dict[WorkerHandle, Any]:
    """Wait for one reply from each handle, in the handles' order: raw reply bytes, or a
    WorkerFailure for a worker that died or did not answer within `timeout` seconds (None:
    no limit). With a timeout each handle is polled in turn against one deadline: a `poll`
    call per worker, where `multiprocessing.connection.wait` built a selector per step (~25 us
    a step for 2 workers); the order keeps errors naming the same env whoever answers first."""
    if timeout is None:  # no deadline: plain blocking reads
        return {h: _receive(h) for h in handles}
    handles = list(handles)
    results: Dict[WorkerHandle, Any] = {}
    deadline = time.monotonic() + timeout
    for i, h in enumerate(handles):
        if not _readable(h.conn, deadline - time.monotonic()):
            for late in handles[i:]:  # none of the rest is waited for past the deadline either
                results[late] = _receive(late) if _readable(late.conn, 0.0) else \
                    WorkerFailure('timeout', f'envs {late.env_ids} gave no answer within {timeout} s')
            return results
        results[h] = _receive(h)
    return results


def _readable(conn: Any, seconds: float) -> bool:
    """True when `conn` has a reply (or its process closed it) within `seconds`."""
    if _poll is None:  # no poll(2) (Windows): multiprocessing's portable wait
        return bool(wait([conn], max(0.0, seconds)))
    poller = _poll()
    poller.register(conn.fileno(), _POLL_EVENTS)
    return bool(poller.poll(max(0, math.ceil(seconds * 1000))))


def _receive(h: WorkerHandle) -> Any:
    """One reply of `h` (blocking), or a WorkerFailure when its process is gone."""
    try:
        return h.conn.recv_bytes()
    except (EOFError, OSError):
        h.process.join(0.1)
        return WorkerFailure('died', f'worker of envs {h.env_ids} exited (exit code {h.process.exitcode})')


def decode(reply: Any) -> Any:
    """Reply bytes -> payload (None for an empty step reply); an env failure -> WorkerFailure;
    a wrong observation -> ValueError raised here, naming the env."""
    if isinstance(reply, WorkerFailure):
        return reply
    if not reply:
        return None
    reply = pickle.loads(reply)
    if reply[0] == 'error':
        if reply[1] == 'value':
            raise ValueError(reply[2])
        return WorkerFailure(reply[1], reply[2], reply[3] if len(reply) > 3 else None)
    return reply[1]


def stop_all(handles: List[WorkerHandle]) -> None:
    """Close every worker: ask all at once, then wait, so closing n workers costs one grace."""
    for h in handles:
        if h.process is not None and h.process.is_alive():
            h.send(pickle.dumps(('close', None)))
    deadline = time.monotonic() + STOP_GRACE_S
    for h in handles:
        if h.process is not None:
            h.process.join(max(0.0, deadline - time.monotonic()))
            h.stop(graceful=False)
