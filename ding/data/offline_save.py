"""Writing collected transitions to a file for offline RL.

Formats (`data_type`):
- 'naive': a pickle of a list of transition dicts (`NaiveRLDataset` reads it with `pickle.load`);
- 'hdf5': one hdf5 dataset per column (`obs`, `action`, `reward`, `done`, `next_obs`, and any
  other column the collector wrote; nested columns as groups);
- 'd4rl': D4RL's layout (`observations`, `actions`, `rewards`, `terminals`, `timeouts`,
  `next_observations`), which `create_dataset` reads back with data_type 'd4rl';
- 'minari': a Minari dataset directory (ding/data/minari_dataset.py; `pip install "ding[minari]"`).
hdf5 needs h5py (`pip install "ding[offline]"`), imported only when used. Every file is written
atomically: a crash leaves the previous file or none, never a truncated one.

`save_offline_data` writes exactly to `path`. `offline_data_save_type` renames the file for 'hdf5':
a path `x.pkl` becomes `x_demos.hdf5` (a path already ending in .hdf5 / .h5 is kept), which is
where the offline configs in dizoo then read it.
"""
import logging
import os
import pickle
from typing import Any, Dict

import numpy as np

from ding.data.batch import Batch, as_batch
from ding.utils.fileio import atomic_write_with
from ding.utils.optional_import import import_h5py

DATA_TYPES = ('naive', 'hdf5', 'd4rl', 'minari')
logger = logging.getLogger('ding.data')

# our column -> D4RL's key
D4RL_KEYS = {'obs': 'observations', 'action': 'actions', 'reward': 'rewards', 'done': 'terminals',
             'truncated': 'timeouts', 'next_obs': 'next_observations'}


def save_offline_data(data: Any, path: str, data_type: str = 'naive') -> str:
    """Save `data` (a Batch, a list of transition dicts, or a dict of columns) to `path`."""
    if data_type not in DATA_TYPES:
        raise ValueError(f'data_type must be one of {DATA_TYPES}, got {data_type!r}')
    if data_type == 'minari':
        from ding.data.minari_dataset import save_minari
        return save_minari(data, path)
    batch = as_batch(data).to_numpy()
    if len(batch) == 0:
        raise ValueError(f'save_offline_data: no transitions to save to {path}')
    if data_type == 'naive':
        rows = [row.to_dict() for row in batch]
        atomic_write_with(path, lambda f: pickle.dump(rows, f, protocol=pickle.HIGHEST_PROTOCOL))
    elif data_type == 'hdf5':
        _write_hdf5(path, lambda f: _write_group(f, batch))
    else:
        _write_hdf5(path, lambda f: _write_columns(f, d4rl_columns(batch)))
    logger.info('saved %d transitions (%s) to %s', len(batch), data_type, path)
    return path


def di_engine_save_path(path: str, data_type: str) -> str:
    """Where `offline_data_save_type` puts `data_type` data asked for at `path`."""
    if data_type != 'hdf5' or path.endswith(('.hdf5', '.h5')):
        return path
    return path[:-len('.pkl')] + '_demos.hdf5' if path.endswith('.pkl') else path + '_demos.hdf5'


def offline_data_save_type(exp_data: Any, expert_data_path: str, data_type: str = 'naive') -> str:
    """`save_offline_data(exp_data, di_engine_save_path(expert_data_path, data_type), data_type)`;
    returns the path written."""
    return save_offline_data(exp_data, di_engine_save_path(expert_data_path, data_type), data_type)


def d4rl_columns(batch: Batch) -> Dict[str, np.ndarray]:
    """D4RL's arrays from our columns; `timeouts` is all False when the data has no `truncated`."""
    missing = [k for k in ('obs', 'action', 'reward', 'done', 'next_obs') if k not in batch]
    if missing:
        raise KeyError(f'd4rl format needs the columns obs, action, reward, done, next_obs; missing {missing}')
    columns = {D4RL_KEYS[k]: np.asarray(batch[k]) for k in D4RL_KEYS if k in batch}
    columns['terminals'] = columns['terminals'].astype(bool)
    columns['timeouts'] = np.asarray(batch['truncated'], dtype=bool) if 'truncated' in batch else \
        np.zeros(len(batch), dtype=bool)
    return columns


def _write_hdf5(path: str, fill: Any) -> None:
    """Build the file under a temporary name, then rename it over `path`."""
    h5py = import_h5py('saving hdf5 data')
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f'.{os.path.basename(path)}.{os.getpid()}.tmp')
    try:
        with h5py.File(tmp, 'w') as f:
            fill(f)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _write_columns(group: Any, columns: Dict[str, np.ndarray]) -> None:
    for k, v in columns.items():
        group.create_dataset(k, data=v)


def _write_group(group: Any, batch: Batch) -> None:
    for k, v in batch.items():
        if isinstance(v, Batch):
            _write_group(group.create_group(k), v)
        elif np.asarray(v).dtype == object:
            raise TypeError(f'column {k!r} holds Python objects, which hdf5 cannot store; use data_type="naive"')
        else:
            group.create_dataset(k, data=v)
