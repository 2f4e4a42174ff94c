"""Import a package that an extra installs, or say which extra installs it."""
import importlib
from typing import Any


def import_optional(module: str, purpose: str, extra: str, packages: str) -> Any:
    """`module`, imported; an ImportError naming `purpose` and the pip command when it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ImportError(f'{purpose} needs {module}, which is not installed; install it with: '
                          f'pip install "ding[{extra}]" (or pip install {packages})') from err


def import_h5py(purpose: str) -> Any:
    return import_optional('h5py', purpose, 'offline', 'h5py')
