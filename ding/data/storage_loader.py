"""`FileStorageLoader(dirname, ttl=20)`: hand large data between processes through files.

`save(obj)` pickles `obj` to a new file under `dirname` (atomically: a reader never sees a
half-written file) and returns a small `FileStorage` handle, cheap to send over any
channel; the receiver calls `handle.load()`. Files this loader wrote are removed once they
are older than `ttl` seconds (checked on each save and at `shutdown`), so a crashed reader
cannot fill the disk.
"""
import os
import pickle
import time
import uuid
from dataclasses import dataclass
from typing import Any, List, Tuple

from ding.utils.fileio import atomic_write_bytes


@dataclass(frozen=True)
class FileStorage:
    """A handle to one saved object."""
    path: str

    def load(self) -> Any:
        with open(self.path, 'rb') as f:
            return pickle.load(f)


class FileStorageLoader:

    def __init__(self, dirname: str, ttl: float = 20) -> None:
        self.dirname = dirname
        self.ttl = ttl
        self._written: List[Tuple[float, str]] = []  # (time written, path), oldest first

    def save(self, obj: Any) -> FileStorage:
        path = self.new_path('data', '.pkl')
        self.write(path, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
        return FileStorage(path)

    def new_path(self, prefix: str, suffix: str) -> str:
        return os.path.join(self.dirname, f'{prefix}_{uuid.uuid4().hex}{suffix}')

    def write(self, path: str, data: bytes) -> None:
        """Write `data` atomically to `path`, remembering it for cleaning."""
        self.clean()
        atomic_write_bytes(path, data)
        self._written.append((time.monotonic(), path))

    def load(self, storage: FileStorage) -> Any:
        return storage.load()

    def clean(self, max_age: float = None) -> int:
        """Remove files written more than `max_age` (default ttl) seconds ago; returns how many."""
        limit = time.monotonic() - (self.ttl if max_age is None else max_age)
        removed = 0
        while self._written and self._written[0][0] <= limit:
            _, path = self._written.pop(0)
            if os.path.exists(path):
                os.unlink(path)
            removed += 1
        return removed

    def start(self) -> 'FileStorageLoader':
        return self

    def shutdown(self) -> None:
        self.clean()

    def __enter__(self) -> 'FileStorageLoader':
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()
