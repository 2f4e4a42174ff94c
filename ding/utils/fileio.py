"""Atomic file writes: write to a temporary file beside the target, fsync, then rename.
A crash at any moment leaves either the old file or the new one, never a truncated one.
The file gets the mode a plain `open(path, 'w')` would leave (mkstemp alone makes it 0600).

A write that fails for a cause the user must fix (a full disk, a read-only file system, no
permission) raises `FileWriteError` naming the file and the cause, whatever wrapped it: torch's
writer turns a full disk into `RuntimeError: ... unexpected pos 64 vs 0`, with the ENOSPC
buried in its chain. The CLI prints it as one `ding: error:` line."""
import errno
import json
import os
import stat
import tempfile
import threading
from typing import Any, BinaryIO, Callable

import torch


def atomic_write_bytes(path: str, data: bytes) -> None:
    atomic_write_with(path, lambda f: f.write(data))


# errno -> what the user reads; the causes a user fixes outside the program
USER_FIXABLE = {
    errno.ENOSPC: 'no space left on the device',
    errno.EDQUOT: 'disk quota exceeded',
    errno.EROFS: 'read-only file system',
    errno.EACCES: 'permission denied',
    errno.EPERM: 'operation not permitted',
    errno.ENOTDIR: 'a part of the path is a file, not a directory',
}


class FileWriteError(OSError):
    """A file of a run could not be written for a cause in USER_FIXABLE; `str()` is one line:
    `cannot write /runs/x/ckpt/final.pth.tar: no space left on the device (ENOSPC)`."""

    def __str__(self) -> str:
        return f'cannot write {self.filename}: {self.strerror} ({errno.errorcode.get(self.errno, self.errno)})'


def user_fixable_cause(err: BaseException) -> Any:
    """The first OSError in `err`'s chain (itself, its cause, its context) whose errno is in
    USER_FIXABLE, else None."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, OSError) and err.errno in USER_FIXABLE:
            return err
        err = err.__cause__ or err.__context__
    return None


def write_error(path: str, err: BaseException) -> Any:
    """A FileWriteError for writing `path` when `err` was caused by a full disk, a read-only
    file system or a permission, else None. It names `path`, or the directory above it that
    could not be made."""
    cause = user_fixable_cause(err)
    if cause is None:
        return None
    named = cause.filename  # a directory above `path` that could not be made: name it
    inside = named and os.path.abspath(path).startswith(os.path.abspath(os.fspath(named)) + os.sep)
    return FileWriteError(cause.errno, USER_FIXABLE[cause.errno], os.fspath(named) if inside else path)


def atomic_write_with(path: str, write: Callable[[BinaryIO], Any]) -> None:
    """`write(f)` fills a temporary file that then replaces `path`: large objects can be
    streamed into it without first being serialised in memory. FileWriteError for a full
    disk, a read-only file system or no permission."""
    path = os.fspath(path)
    try:
        _atomic_write_with(path, write)
    except FileWriteError:
        raise
    except Exception as err:  # noqa: BLE001 - re-raised as is unless its cause is one the user must fix
        found = write_error(path, err)
        if found is None:
            raise
        raise found from err


def _atomic_write_with(path: str, write: Callable[[BinaryIO], Any]) -> None:
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
            try:
                os.unlink(tmp)
            except OSError:  # the write's own error says more than this one
                pass
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
