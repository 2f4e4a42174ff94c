"""ding: a fast, resumable reinforcement-learning framework with a middleware API."""
import importlib.util as _importlib_util

__version__ = '0.1.0'

# Looked up, not imported: `ding --help` and `ding list` should not pay for importing torch.
if _importlib_util.find_spec('torch') is None:
    raise ImportError(
        'ding needs PyTorch, which `pip install ding` leaves to you because the default Linux wheel is a '
        'multi-GB CUDA build. For the CPU build: pip install torch --index-url https://download.pytorch.org/whl/cpu '
        '(for CUDA, pick the command on pytorch.org); or pip install "ding[torch]" for pip\'s default.')

from ding.utils.log_handler import install_default_handler as _install_default_handler  # noqa: E402

_install_default_handler()  # INFO records show under ditk's root level too (see the module)

from ding.compat import install as _install_compat  # noqa: E402

_install_compat()  # ding.compat's module aliases and protocol adapters (see the module)
