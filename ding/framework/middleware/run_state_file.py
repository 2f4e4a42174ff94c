"""The run-state checkpoint on disk: written streamed and atomically, the previous one kept,
read back with a fallback.

Why keep the previous one: a latest checkpoint can still end up unreadable (a disk that
filled up, a copy cut short, a file overwritten by hand). `ckpt/run_state.prev.pt` is the
checkpoint before it, so resume falls back to it and says so. The rotation is a hard link
taken before the new file replaces the latest, so there is never a moment without a
complete `run_state.pt`.

Why the arrays become tensors: `torch.save` pickles a numpy array through an in-memory copy
(about 4x the array at peak), while a tensor's memory is written straight to the file. Buffer
arrays are therefore saved as tensors that load back as the same numpy arrays (`_AsTensor`).
"""
import logging
import os
import shutil
from typing import Any, Dict, List, Tuple

import numpy as np
import torch

from ding.utils.fileio import atomic_torch_save
from ding.utils.run_dir import RUN_STATE_PREV_NAME

logger = logging.getLogger('ding.run_state')
FORMAT_VERSION = 2
READABLE_FORMATS = (1, 2)  # 1: whole-ring buffer, one pickle of all serial envs
_TENSOR_DTYPES = frozenset(np.dtype(t) for t in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
                                                 np.float16, np.float32, np.float64))


class RunStateUnreadable(ValueError):
    """No run-state checkpoint of a run directory could be read (the message lists why)."""


def previous_path(path: str) -> str:
    return os.path.join(os.path.dirname(path), RUN_STATE_PREV_NAME)


# --- writing ----------------------------------------------------------------------------------
def write_run_state(state: Dict[str, Any], path: str, keep_previous: bool = True) -> None:
    """Write `state` to `path` atomically; the file it replaces becomes `run_state.prev.pt`
    (unless `keep_previous` is False: the current latest is known to be bad)."""
    if keep_previous and os.path.isfile(path):
        _link_as_previous(path)
    atomic_torch_save(state, path)


def _link_as_previous(path: str) -> None:
    prev = previous_path(path)
    tmp = os.path.join(os.path.dirname(path), f'.{RUN_STATE_PREV_NAME}.{os.getpid()}.tmp')
    if os.path.exists(tmp):
        os.unlink(tmp)
    try:
        os.link(path, tmp)
    except OSError:  # a filesystem without hard links: copy
        shutil.copyfile(path, tmp)
    os.replace(tmp, prev)


def arrays_as_tensors(obj: Any) -> Any:
    """`obj` (dicts, lists, tuples) with its numeric numpy arrays wrapped to be saved as tensors."""
    if isinstance(obj, np.ndarray):
        if obj.dtype in _TENSOR_DTYPES and obj.dtype.isnative and obj.ndim > 0:
            return _AsTensor(np.ascontiguousarray(obj))
        return obj
    if isinstance(obj, dict):
        return {k: arrays_as_tensors(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(arrays_as_tensors(v) for v in obj)
    return obj


class _AsTensor:
    """Pickles as a tensor sharing the array's memory; unpickles as a numpy array."""
    __slots__ = ('array', )

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __reduce__(self) -> tuple:
        return _tensor_to_numpy, (torch.from_numpy(self.array), )


def _tensor_to_numpy(tensor: torch.Tensor) -> np.ndarray:
    return tensor.numpy()


# --- reading ----------------------------------------------------------------------------------
def load_run_state_file(path: str) -> Dict[str, Any]:
    """One run-state file (a pickle of python objects, so only load your own)."""
    if os.path.getsize(path) == 0:
        raise RunStateUnreadable(f'{path} is empty')
    try:
        state = torch.load(path, map_location='cpu', weights_only=False)
    except Exception as err:  # noqa: BLE001 - EOFError, UnpicklingError, zip errors...: all mean unreadable
        raise RunStateUnreadable(f'{path} is not a readable checkpoint (truncated or corrupt): '
                                 f'{type(err).__name__}: {_first_line(err)}') from err
    if not isinstance(state, dict) or state.get('format') not in READABLE_FORMATS:
        found = state.get('format') if isinstance(state, dict) else type(state).__name__
        raise RunStateUnreadable(f'{path}: run-state format {found}, this ding reads {list(READABLE_FORMATS)}')
    return state


def read_run_state(path: str) -> Tuple[Dict[str, Any], str, List[str]]:
    """(state, the file it came from, why the files before it were skipped): the latest
    checkpoint, else the previous one. Raises `RunStateUnreadable` naming both problems."""
    problems: List[str] = []
    for candidate in (path, previous_path(path)):
        if not os.path.isfile(candidate):
            problems.append(f'{candidate} does not exist')
            continue
        try:
            return load_run_state_file(candidate), candidate, problems
        except RunStateUnreadable as err:
            problems.append(str(err))
    raise RunStateUnreadable('cannot resume: no readable run-state checkpoint: ' + '; '.join(problems))


def _first_line(err: BaseException) -> str:
    """The first sentence of the error (torch's zip errors go on with advice for other cases)."""
    lines = str(err).strip().splitlines()
    first = lines[0] if lines else ''
    return first.split('. ')[0][:200]
