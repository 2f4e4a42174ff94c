"""`EasyTimer`: a `with timer: ...` stopwatch; `timer.value` is the last duration in seconds."""
import time
from typing import Any


class EasyTimer:

    def __init__(self, cuda: bool = True) -> None:
        # Synchronise CUDA around the block, so the time covers the kernels it launched.
        self._cuda = cuda
        self.value = 0.0
        self._start = 0.0

    def _sync(self) -> None:
        if self._cuda:
            import torch
            if torch.cuda.is_available() and torch.cuda.is_initialized():
                torch.cuda.synchronize()

    def __enter__(self) -> 'EasyTimer':
        self._sync()
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._sync()
        self.value = time.perf_counter() - self._start
