"""The run's tensorboard writer, set up once by `ding_init(cfg)` and shared by the loggers.

The SummaryWriter is created on first use, so a run that never logs writes no event file;
tensorboardX is imported only then too.
"""
import os
import threading
from typing import Any, Optional

_lock = threading.Lock()
_current: Optional['RunWriter'] = None


class RunWriter:
    """A tensorboard writer for one run's log directory (thread-safe, created lazily)."""

    def __init__(self, logdir: str) -> None:
        self.logdir = os.fspath(logdir)
        self._writer = None
        self._lock = threading.Lock()

    @property
    def summary_writer(self) -> Any:
        with self._lock:
            if self._writer is None:
                from tensorboardX import SummaryWriter
                self._writer = SummaryWriter(logdir=self.logdir)
            return self._writer

    def add_scalar(self, tag: str, value: float, global_step: Optional[int] = None) -> None:
        self.summary_writer.add_scalar(tag, value, global_step)

    def add_scalars(self, main_tag: str, values: dict, global_step: Optional[int] = None) -> None:
        self.summary_writer.add_scalars(main_tag, values, global_step)

    def add_histogram(self, tag: str, values: Any, global_step: Optional[int] = None) -> None:
        self.summary_writer.add_histogram(tag, values, global_step)

    def flush(self) -> None:
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        with self._lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None

    @classmethod
    def get_instance(cls, logdir: Optional[str] = None) -> 'RunWriter':
        """DI-engine's `DistributedWriter.get_instance` spelling of get_writer / init_writer."""
        return init_writer(logdir) if logdir is not None else get_writer()


DistributedWriter = RunWriter  # DI-engine's name: `DistributedWriter.get_instance(exp_name)`


def init_writer(logdir: str) -> RunWriter:
    """Make the run's writer (closing the previous run's) and return it."""
    global _current
    with _lock:
        if _current is not None:
            _current.close()
        _current = RunWriter(logdir)
        return _current


def get_writer() -> RunWriter:
    """The writer `ding_init(cfg)` set up; RuntimeError if it was never called."""
    if _current is None:
        raise RuntimeError('no tensorboard writer: call ding.framework.ding_init(cfg) before logging')
    return _current


def has_writer() -> bool:
    return _current is not None
