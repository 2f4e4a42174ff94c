"""Give freed heap memory back to the OS after a large, short-lived allocation.

Why: a run-state checkpoint allocates and frees ~100 MB of temporaries (the buffer's filled
rows, the pickled envs). glibc keeps part of such memory in its heap and returns it only
sometimes, so a long run's RSS jumps between two levels (measured in benchmarks/results/soak.md:
431 and 500 MB with a 1M-row buffer) although nothing leaks. `malloc_trim(0)` returns it.
"""
import ctypes
import ctypes.util
import functools
from typing import Optional


@functools.lru_cache(maxsize=1)
def _libc() -> Optional[ctypes.CDLL]:
    name = ctypes.util.find_library('c')
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
    except OSError:
        return None
    return libc if hasattr(libc, 'malloc_trim') else None  # glibc only (not musl, macOS)


def release_freed_memory() -> bool:
    """Trim the heap where the C library can (glibc); True if it returned memory to the OS."""
    libc = _libc()
    return bool(libc.malloc_trim(0)) if libc is not None else False
