"""The run's tensorboard writer, set up once by `ding_init(cfg)` and shared by the loggers.

The SummaryWriter is created on first use, so a run that never logs writes no event file;
tensorboardX is imported only then too.
"""
import os
import threading
import time
from typing import Any, Optional

_lock = threading.Lock()
_current: Optional['RunWriter'] = None


class RunWriter:
    """A tensorboard writer for one run's log directory (thread-safe, created lazily).

    Scalars and histograms are written synchronously to one event file, so `flush()` puts
    every one logged so far on disk: tensorboardX's SummaryWriter queues events for a
    background thread and its flush does not wait for that queue, so a checkpoint followed by
    a kill could lose evaluations. Other SummaryWriter methods (images, text, ...) go to a
    SummaryWriter made on first use; `flush()` and `close()` reach it too."""

    def __init__(self, logdir: str) -> None:
        self.logdir = os.fspath(logdir)
        self._events = None
        self._writer = None
        self._lock = threading.Lock()

    def _write(self, summary: Any, global_step: Optional[int]) -> None:
        from tensorboardX.proto import event_pb2
        event = event_pb2.Event(summary=summary, wall_time=time.time())
        if global_step is not None:
            event.step = int(global_step)
        with self._lock:
            if self._events is None:
                from tensorboardX.event_file_writer import EventsWriter
                os.makedirs(self.logdir, exist_ok=True)
                self._events = EventsWriter(os.path.join(self.logdir, 'events'), filename_suffix='.ding')
            self._events.write_event(event)

    @property
    def summary_writer(self) -> Any:
        with self._lock:
            if self._writer is None:
                from tensorboardX import SummaryWriter
                self._writer = SummaryWriter(logdir=self.logdir)
            return self._writer

    def add_scalar(self, tag: str, value: float, global_step: Optional[int] = None) -> None:
        from tensorboardX.summary import scalar
        self._write(scalar(tag, float(value)), global_step)

    def add_scalars(self, main_tag: str, values: dict, global_step: Optional[int] = None) -> None:
        for key, value in values.items():
            self.add_scalar(f'{main_tag}/{key}', value, global_step)

    def add_histogram(self, tag: str, values: Any, global_step: Optional[int] = None, bins: Any = 'auto') -> None:
        from tensorboardX.summary import histogram
        self._write(histogram(tag, _as_numpy(values), bins), global_step)

    def __getattr__(self, name: str) -> Any:
        if name.startswith('_'):
            raise AttributeError(name)
        return getattr(self.summary_writer, name)  # add_image, add_text, ...

    def flush(self) -> None:
        with self._lock:
            if self._events is not None:
                self._events.flush()
            if self._writer is not None:
                self._writer.flush()

    def close(self) -> None:
        with self._lock:
            if self._events is not None:
                self._events.close()
                self._events = None
            if self._writer is not None:
                self._writer.close()
                self._writer = None

    @classmethod
    def get_instance(cls, logdir: Optional[str] = None) -> 'RunWriter':
        """The `DistributedWriter.get_instance` spelling of get_writer / init_writer."""
        return init_writer(logdir) if logdir is not None else get_writer()


def _as_numpy(values: Any) -> Any:
    import numpy as np
    if hasattr(values, 'detach'):  # a torch tensor
        values = values.detach().cpu().numpy()
    return np.asarray(values)


DistributedWriter = RunWriter  # also public under this name: `DistributedWriter.get_instance(exp_name)`


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
