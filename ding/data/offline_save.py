"""Writing collected transitions to a file for offline RL: 'naive' (a torch pickle of the column
dict) or 'hdf5' (one dataset per column, nested columns as groups; h5py imported only then).
`offline_data_save_type` is DI-engine's name for it."""
import os
from typing import Any

from ding.data.batch import Batch, as_batch
from ding.utils.fileio import atomic_torch_save

DATA_TYPES = ('naive', 'hdf5')


def save_offline_data(data: Any, path: str, data_type: str = 'naive') -> None:
    """Save `data` (a Batch, or anything `as_batch` takes: a list of transition dicts, ...)."""
    if data_type not in DATA_TYPES:
        raise ValueError(f'data_type must be one of {DATA_TYPES}, got {data_type!r}')
    batch = as_batch(data).to_numpy()
    if data_type == 'naive':
        atomic_torch_save(batch.to_dict(), path)
    else:
        _save_hdf5(batch, path)


def offline_data_save_type(exp_data: Any, expert_data_path: str, data_type: str = 'naive') -> None:
    """DI-engine's `ding.data.offline_data_save_type(exp_data, expert_data_path, data_type)`."""
    save_offline_data(exp_data, expert_data_path, data_type)


def _save_hdf5(batch: Batch, path: str) -> None:
    try:
        import h5py
    except ImportError as err:
        raise ImportError("saving data_type='hdf5' needs h5py: pip install h5py (or use data_type='naive')") from err
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + '.tmp'
    with h5py.File(tmp, 'w') as f:
        _write_group(f, batch)
    os.replace(tmp, path)


def _write_group(group: Any, batch: Batch) -> None:
    for k, v in batch.items():
        if isinstance(v, Batch):
            _write_group(group.create_group(k), v)
        else:
            group.create_dataset(k, data=v)
