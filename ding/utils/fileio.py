"""Atomic file writes: write to a temporary file beside the target, fsync, then rename.
A crash at any moment leaves either the old file or the new one, never a truncated one.
The file gets the mode a plain `open(path, 'w')` would leave (mkstemp alone makes it 0600)."""
import json
import os
import stat
import tempfile
import threading
from typing import Any, BinaryIO, Callable

import torch


def atomic_write_bytes(path: str, data: bytes) -> None:
    atomic_write_with(path, lambda f: f.write(data))


def atomic_write_with(path: str, write: Callable[[BinaryIO], Any]) -> None:
    """`write(f)` fills a temporary file that then replaces `path`: large objects can be
    streamed into it without first being serialised in memory."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    mode = _open_mode(path)
    fd, tmp = tempfile.mkstemp(prefix='.' + os.path.basename(path) + '.', suffix='.tmp', dir=directory)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, 'wb') as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _open_mode(path: str) -> int:
    """An existing file keeps its permission bits; a new one gets 0666 less the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o666 & ~current_umask()


_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process umask, read without changing it where /proc says it (Linux >= 4.7);
    elsewhere set-and-restore under a lock."""
    try:
        with open('/proc/self/status') as f:
            for line in f:
                if line.startswith('Umask:'):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def atomic_write_text(path: str, text: str) -> None:
    atomic_write_bytes(path, text.encode('utf-8'))


def atomic_write_json(path: str, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, default=_json_default) + '\n')


def atomic_torch_save(obj: Any, path: str) -> None:
    # Streamed: tensors go from their memory straight to the file (an in-memory copy of a
    # large checkpoint would double its peak memory).
    atomic_write_with(path, lambda f: torch.save(obj, f))


def _json_default(o: Any) -> Any:
    if hasattr(o, 'tolist'):
        return o.tolist()
    if hasattr(o, 'item'):
        return o.item()
    return str(o)
