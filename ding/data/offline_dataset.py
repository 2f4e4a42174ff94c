"""Offline RL datasets: `create_dataset(cfg)` and the dataset types it builds.

`cfg.policy.collect.data_type` picks the reader and `cfg.policy.collect.data_path` the file:
- 'naive': a pickle of a list of transition dicts or of a dict of columns;
- 'hdf5': one hdf5 column per transition key (`obs`, `action`, `reward`, `done`, `next_obs`, ...); a file
  in D4RL's layout is recognised and read as 'd4rl';
- 'd4rl': D4RL's hdf5 layout (`observations`, `actions`, `rewards`, `terminals`, `timeouts`,
  optional `next_observations`) from a local file: nothing is ever downloaded;
- 'minari': a local Minari dataset (ding/data/minari_dataset.py).
Every dataset is a `BatchDataset` (rows as dicts; `.batch` the columns, which
`offline_data_fetcher` indexes directly) with its statistics (`mean`, `std`,
`action_bounds`, `statistics`). With `cfg.env.norm_obs.use_norm` and
`cfg.env.norm_obs.offline_stats.use_offline_stats` the observations are normalised by them.
"""
import os
import pickle
from dataclasses import dataclass
from typing import Any, Dict, Optional

import numpy as np

from ding.data.batch import Batch
from ding.data.dataset import BatchDataset
from ding.utils.optional_import import import_h5py
from ding.utils.registry import DATASET_REGISTRY


@dataclass
class DatasetStatistics:
    """Observation mean / std and the action bounds [2, action_dim] of a dataset."""
    mean: np.ndarray
    std: np.ndarray
    action_bounds: np.ndarray


class OfflineRLDataset(BatchDataset):
    """Transitions (obs, action, reward, next_obs, done[, truncated, ...]) held as columns."""

    def __init__(self, columns: Any, cfg: Any = None) -> None:
        super().__init__(columns)
        missing = [k for k in ('obs', 'action', 'reward', 'next_obs', 'done') if k not in self.batch]
        if missing:
            raise KeyError(f'{type(self).__name__}: the data has no {missing} column(s); columns: '
                           f'{sorted(self.batch.keys())}')
        reward = np.asarray(self.batch['reward'])
        if reward.ndim == 2 and reward.shape[1] == 1:  # each reward saved as a [1] tensor
            self.batch['reward'] = reward.reshape(-1)
        self._statistics = compute_statistics(self.batch)
        self.obs_normalized = False
        if _wants_normalised_obs(cfg):
            self.normalize_obs()

    def normalize_obs(self) -> None:
        """obs and next_obs <- (x - mean) / std, with the dataset's own statistics."""
        mean, std = self.mean.astype(np.float32), self.std.astype(np.float32)
        for key in ('obs', 'next_obs'):
            self.batch[key] = ((np.asarray(self.batch[key]) - mean) / std).astype(np.float32)
        self.obs_normalized = True

    @property
    def data(self) -> Batch:
        return self.batch

    @property
    def mean(self) -> np.ndarray:
        return self._statistics.mean

    @property
    def std(self) -> np.ndarray:
        return self._statistics.std

    @property
    def action_bounds(self) -> np.ndarray:
        return self._statistics.action_bounds

    @property
    def statistics(self) -> DatasetStatistics:
        return self._statistics


def compute_statistics(batch: Batch, eps: float = 1e-3) -> DatasetStatistics:
    """Observation mean / std (+eps) and action bounds widened by 5% of their range each side."""
    obs = np.asarray(batch['obs'], dtype=np.float64)
    action = np.asarray(batch['action'], dtype=np.float64)
    low, high = action.min(0), action.max(0)
    margin = 0.05 * (high - low)
    return DatasetStatistics(obs.mean(0), obs.std(0) + eps, np.stack([low - margin, high + margin]))


def _wants_normalised_obs(cfg: Any) -> bool:
    norm = ((cfg.get('env') or {}).get('norm_obs') or {}) if isinstance(cfg, dict) else {}
    return bool(norm.get('use_norm') and (norm.get('offline_stats') or {}).get('use_offline_stats'))


def data_path_of(cfg: Any, kind: str) -> str:
    """`cfg.policy.collect.data_path` (or cfg itself, a path), checked to exist."""
    path = cfg if isinstance(cfg, (str, os.PathLike)) else ((cfg.get('policy') or {}).get('collect') or {}).get(
        'data_path')
    if not path:
        raise ValueError(f'{kind} dataset: set cfg.policy.collect.data_path to a local file (datasets are never '
                         f'downloaded; make one with dizoo/classic_control/pendulum/entry/pendulum_make_dataset.py)')
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f'{kind} dataset: no file at cfg.policy.collect.data_path={path!r}')
    return path


def load_naive(path: str) -> Batch:
    """A pickle of transition dicts or of a column dict; earlier torch-saved files too."""
    try:
        with open(path, 'rb') as f:
            data = pickle.load(f)
    except (pickle.UnpicklingError, ValueError, EOFError) as err:
        import torch
        try:
            data = torch.load(path, map_location='cpu', weights_only=False)
        except Exception:
            raise ValueError(f'{path} is not a naive offline dataset (a pickle of transitions): {err}') from err
    if isinstance(data, Batch):
        return data.to_numpy()
    if isinstance(data, dict):
        return Batch(data).to_numpy()
    if isinstance(data, (list, tuple)) and data:
        return Batch.from_rows(list(data)).to_numpy()
    raise ValueError(f'{path}: expected a non-empty list of transition dicts or a dict of columns, '
                     f'got {type(data).__name__}')


def read_hdf5(path: str) -> Dict[str, Any]:
    """Every dataset of the file as numpy arrays; groups become nested dicts."""
    h5py = import_h5py(f'reading {path}')

    def read(group: Any) -> Dict[str, Any]:
        return {k: read(v) if isinstance(v, h5py.Group) else v[()] for k, v in group.items()}

    with h5py.File(path, 'r') as f:
        return read(f)


def d4rl_transitions(arrays: Dict[str, np.ndarray]) -> Batch:
    """Our columns from D4RL's arrays. Without `next_observations`, the next row's observation
    is the next obs, and rows where an episode times out (or the last row) are dropped, as
    d4rl.qlearning_dataset does. `terminals` become `done`, `timeouts` become `truncated`."""
    missing = [k for k in ('observations', 'actions', 'rewards', 'terminals') if k not in arrays]
    if missing:
        raise KeyError(f'd4rl data needs observations, actions, rewards, terminals; missing {missing}')
    n = len(arrays['observations'])
    timeouts = np.asarray(arrays.get('timeouts', np.zeros(n, dtype=bool)), dtype=bool)
    obs = np.asarray(arrays['observations'])
    if 'next_observations' in arrays:
        keep = np.arange(n)
        next_obs = np.asarray(arrays['next_observations'])
    else:
        keep = np.flatnonzero(~timeouts[:-1])
        next_obs = obs[keep + 1]
    return Batch(obs=obs[keep], action=np.asarray(arrays['actions'])[keep],
                 reward=np.asarray(arrays['rewards'])[keep].reshape(len(keep), *np.shape(arrays['rewards'])[1:]),
                 next_obs=next_obs, done=np.asarray(arrays['terminals'], dtype=bool)[keep], truncated=timeouts[keep])


def load_hdf5(path: str) -> Batch:
    arrays = read_hdf5(path)
    if 'observations' in arrays:  # a D4RL-layout file
        return d4rl_transitions(arrays)
    return Batch(arrays)


@DATASET_REGISTRY.register('naive')
class NaiveRLDataset(OfflineRLDataset):
    """A naive (pickle) dataset; `cfg` is a config or the file's path."""

    def __init__(self, cfg: Any) -> None:
        super().__init__(load_naive(data_path_of(cfg, 'naive')), cfg)


@DATASET_REGISTRY.register('hdf5')
class HDF5Dataset(OfflineRLDataset):
    """An hdf5 dataset with one column per transition key (or in D4RL's layout); `cfg` is a config or a path."""

    def __init__(self, cfg: Any) -> None:
        super().__init__(load_hdf5(data_path_of(cfg, 'hdf5')), cfg)


def d4rl_dataset_path(env_id: str) -> str:
    """Where the local dataset of a D4RL env id lives: `$D4RL_DATASET_DIR/<env_id>.hdf5`
    (default `~/.d4rl/datasets`, d4rl's own cache folder). Made, never downloaded, by
    `python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id ENV_ID`."""
    root = os.environ.get('D4RL_DATASET_DIR', os.path.join(os.path.expanduser('~'), '.d4rl', 'datasets'))
    return os.path.join(root, f'{env_id}.hdf5')


def _d4rl_path(cfg: Any) -> str:
    """`cfg.policy.collect.data_path`, else (the D4RL configs in dizoo/d4rl/config leave it None) the local
    file of `cfg.env.env_id`."""
    env_id = ((cfg.get('env') or {}).get('env_id') if isinstance(cfg, dict) else None)
    has_path = isinstance(cfg, (str, os.PathLike)) or ((cfg.get('policy') or {}).get('collect') or {}).get('data_path')
    if has_path or not env_id:
        return data_path_of(cfg, 'd4rl')
    path = d4rl_dataset_path(env_id)
    if not os.path.isfile(path):
        raise FileNotFoundError(f'd4rl dataset: no local file for env_id={env_id!r} at {path} (datasets are never '
                                f'downloaded); make it with: python -m dizoo.d4rl.entry.d4rl_make_dataset '
                                f'--env-id {env_id}, or set cfg.policy.collect.data_path')
    return path


@DATASET_REGISTRY.register('d4rl')
class D4RLDataset(OfflineRLDataset):
    """A D4RL-layout hdf5 file on local disk (d4rl itself is not needed); `cfg` is a config or a
    path. Without a data_path, the file of `cfg.env.env_id` (`d4rl_dataset_path`)."""

    def __init__(self, cfg: Any) -> None:
        super().__init__(d4rl_transitions(read_hdf5(_d4rl_path(cfg))), cfg)


def create_dataset(cfg: Any, **kwargs: Any) -> OfflineRLDataset:
    """The dataset `cfg.policy.collect.data_type` names ('naive', 'hdf5', 'd4rl', 'minari', or 'sequence' /
    'd4rl_trajectory': windows for Decision Transformer, ding/data/sequence_dataset.py), read from
    `cfg.policy.collect.data_path`."""
    collect = (cfg.get('policy') or {}).get('collect') or {}
    data_type = collect.get('data_type')
    if data_type is None:
        raise ValueError("create_dataset: set cfg.policy.collect.data_type ('naive', 'hdf5', 'd4rl', 'minari' or 'sequence')")
    import importlib
    for name in cfg.get('import_names') or []:
        importlib.import_module(name)
    return DATASET_REGISTRY.build(data_type, cfg=cfg, **kwargs)


def data_type_of_path(path: str) -> str:
    """A dataset's type from its path: a directory is a Minari dataset, '.pkl' naive, else hdf5."""
    if os.path.isdir(path):
        return 'minari'
    return 'naive' if os.fspath(path).endswith(('.pkl', '.pickle', '.pt')) else 'hdf5'


def dataset_from_path(path: str, data_type: Optional[str] = None) -> OfflineRLDataset:
    """Read a dataset file (or Minari directory), its type from the path unless given."""
    return DATASET_REGISTRY.build(data_type or data_type_of_path(path), cfg=path)
