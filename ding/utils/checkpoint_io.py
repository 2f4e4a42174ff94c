"""Reading checkpoint files with one clear error for a file that is not a readable checkpoint
(empty, truncated by a crash, or not a torch file at all), instead of torch's EOFError or
UnpicklingError."""
import os
import pickle
import struct
import zipfile
from typing import Any

import torch

# What torch.load raises on an empty, truncated or foreign file (random bytes can also reach the
# unpickler's opcodes with absurd lengths or indices: OverflowError, IndexError, KeyError, struct.error).
UNREADABLE = (EOFError, pickle.UnpicklingError, zipfile.BadZipFile, RuntimeError, ValueError, UnicodeDecodeError,
              OverflowError, IndexError, KeyError, struct.error)


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: unreadable, or not what the caller expected."""


def unreadable(path: str, err: BaseException) -> CheckpointError:
    size = os.path.getsize(path) if os.path.exists(path) else None
    first_sentence = str(err).strip().splitlines()[0].split('. ')[0] if str(err).strip() else ''
    what = 'an empty file' if size == 0 else f'{type(err).__name__}: {first_sentence}'
    return CheckpointError(f'{path} is not a readable checkpoint ({what}); it may be truncated or corrupt')


def load_checkpoint(path: str) -> Any:
    """torch.load onto the CPU (python objects allowed: load only your own files)."""
    try:
        return torch.load(path, map_location='cpu', weights_only=False)
    except UNREADABLE as err:
        raise unreadable(path, err) from err
