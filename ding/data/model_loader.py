"""`FileModelLoader(model, dirname, ttl=20)`: publish a model's weights through files.

`save(callback)` snapshots `model.state_dict()` on the caller's thread (so the file holds
one consistent set of weights even if training continues), writes it from a background
thread (the learner does not wait on the disk) and then calls `callback(FileModel)`, e.g.
to broadcast the handle. `load(handle)` reads the state dict back (`load_into_model` also
applies it). Files older than `ttl` seconds are removed as new ones are written.
"""
import io
import queue
import threading
from typing import Any, Callable, Dict, Optional

import torch

from ding.data.storage_loader import FileStorage, FileStorageLoader


class FileModel(FileStorage):
    """A handle to one saved state dict."""

    def load(self) -> Dict[str, Any]:
        return torch.load(self.path, map_location='cpu', weights_only=True)


class FileModelLoader:

    def __init__(self, model: torch.nn.Module, dirname: str, ttl: float = 20) -> None:
        self._model = model
        self._files = FileStorageLoader(dirname, ttl)
        self._jobs: 'queue.Queue[Optional[tuple]]' = queue.Queue()
        self._thread: Optional[threading.Thread] = None
        self._error: Optional[BaseException] = None

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self) -> 'FileModelLoader':
        if self._thread is None:
            self._thread = threading.Thread(target=self._write_loop, name='FileModelLoader', daemon=True)
            self._thread.start()
        return self

    def shutdown(self, timeout: Optional[float] = None) -> None:
        """Finish pending writes, stop the thread, remove expired files."""
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join(timeout)
            self._thread = None
        self._files.clean()

    def save(self, callback: Optional[Callable[[FileModel], Any]] = None) -> FileModel:
        if self._thread is None:
            raise RuntimeError('FileModelLoader.save before start(): call start() first')
        if self._error is not None:
            raise RuntimeError('an earlier background model write failed') from self._error
        state = {k: v.detach().cpu().clone() for k, v in self._model.state_dict().items()}
        handle = FileModel(self._files.new_path('model', '.pth'))
        self._jobs.put((handle, state, callback))
        return handle

    def load(self, storage: FileModel) -> Dict[str, Any]:
        return storage.load()

    def load_into_model(self, storage: FileModel) -> None:
        self._model.load_state_dict(self.load(storage))

    def _write_loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            handle, state, callback = job
            try:
                buf = io.BytesIO()
                torch.save(state, buf)
                self._files.write(handle.path, buf.getvalue())
                if callback is not None:
                    callback(handle)
            except BaseException as err:  # surfaced on the next save()
                self._error = err

    def __enter__(self) -> 'FileModelLoader':
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()

