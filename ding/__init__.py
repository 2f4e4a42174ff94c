"""ding: a fast, resumable reinforcement-learning framework with DI-engine's middleware API."""
__version__ = '0.1.0'

try:
    import torch as _torch  # noqa: F401  (checked here so that a missing torch says how to get one)
except ImportError as _err:
    raise ImportError(
        'ding needs PyTorch, which `pip install ding` leaves to you because the default Linux wheel is a '
        'multi-GB CUDA build. For the CPU build: pip install torch --index-url https://download.pytorch.org/whl/cpu '
        '(for CUDA, pick the command on pytorch.org); or pip install "ding[torch]" for pip\'s default.') from _err
del _torch
