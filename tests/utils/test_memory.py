"""Freed heap memory goes back to the OS after a checkpoint's temporaries (glibc's malloc_trim)."""
import ctypes.util

import numpy as np
import psutil
import pytest

from ding.utils.memory import release_freed_memory


@pytest.mark.skipif(ctypes.util.find_library('c') is None, reason='no C library to ask')
def test_trim_returns_freed_small_blocks():
    rss = psutil.Process().memory_info().rss
    blocks = [np.ones(2048, dtype=np.uint8) for _ in range(60_000)]  # ~130 MB of heap (below mmap size)
    del blocks
    release_freed_memory()
    assert psutil.Process().memory_info().rss - rss < 40 * 2**20
