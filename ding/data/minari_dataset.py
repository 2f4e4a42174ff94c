"""Minari datasets (https://minari.farama.org) for offline RL, through the `minari` package
(`pip install "ding[minari]"`), imported only when used. Nothing is downloaded: datasets are
made locally and read from local disk.

- `save_minari(data, path)` writes transitions as a Minari dataset directory `path/`
  (`path/data/{main_data.hdf5, metadata.json}`, Minari's hdf5 storage). Rows are grouped into
  episodes: an episode ends where `done` or `truncated` is set, or where the next row does not
  continue it (another env's rows, or a batch that stopped mid-episode); such an unfinished
  episode is stored with neither flag, as Minari allows.
- `MinariRLDataset` (data_type 'minari') reads one back: `data_path` is a dataset directory
  (holding `data/`), its `data/` folder, or a dataset id (`namespace/name-v0`) under Minari's
  local root (`$MINARI_DATASETS_PATH`, default `~/.minari/datasets`).
Each episode's observations (T+1 of them) become obs = [:-1] and next_obs = [1:];
terminations -> done, truncations -> truncated, as every other dataset type names them.
"""
import os
import re
import shutil
from typing import Any, Dict, List, Optional

import numpy as np

from ding.data.batch import Batch, as_batch
from ding.data.offline_dataset import OfflineRLDataset
from ding.utils.optional_import import import_optional
from ding.utils.registry import DATASET_REGISTRY


def import_minari(purpose: str) -> Any:
    return import_optional('minari', purpose, 'minari', 'minari h5py')


def episode_slices(batch: Batch) -> List[slice]:
    """Consecutive rows of one episode each (see the module note for where episodes end)."""
    n = len(batch)
    ends = np.asarray(batch['done'], dtype=bool).copy()
    if 'truncated' in batch:
        ends |= np.asarray(batch['truncated'], dtype=bool)
    obs, next_obs = np.asarray(batch['obs']), np.asarray(batch['next_obs'])
    breaks = np.any((next_obs[:-1] != obs[1:]).reshape(n - 1, -1), axis=1) if n > 1 else np.zeros(0, bool)
    if 'env_id' in batch:
        env_id = np.asarray(batch['env_id'])
        breaks |= env_id[:-1] != env_id[1:]
    last = np.flatnonzero(np.append(ends[:-1] | breaks, True))
    starts = np.append(0, last[:-1] + 1)
    return [slice(s, e + 1) for s, e in zip(starts, last)]


def _space_of(values: np.ndarray, kind: str) -> Any:
    """A Box of the column's shape and dtype, or Discrete for scalar integer actions."""
    from gymnasium import spaces
    if kind == 'action' and np.issubdtype(values.dtype, np.integer) and values.ndim == 1:
        return spaces.Discrete(int(values.max()) + 1)
    if not np.issubdtype(values.dtype, np.floating):
        raise TypeError(f'minari: cannot infer a space for {kind} of dtype {values.dtype}; pass {kind}_space')
    return spaces.Box(-np.inf, np.inf, shape=values.shape[1:], dtype=values.dtype)


def _check_flat(batch: Batch) -> None:
    nested = [k for k in ('obs', 'action', 'next_obs') if isinstance(batch[k], Batch)]
    if nested:
        raise TypeError(f'minari: columns {nested} are dicts; save_minari writes array observations and actions '
                        f'(use data_type "hdf5" or "naive" for dict spaces)')


def _default_id(path: str) -> str:
    """The directory's name, with `-v0` when it has no version (Minari ids end in `-v<N>`)."""
    name = os.path.basename(os.path.normpath(path))
    return name if re.search(r'-v\d+$', name) else f'{name}-v0'


def save_minari(data: Any, path: str, env_id: Optional[str] = None, observation_space: Any = None,
                action_space: Any = None, dataset_id: Optional[str] = None) -> str:
    """Write `data` (transitions: a Batch, transition dicts or a dict of columns) as a Minari
    dataset directory at `path`, replacing one there. The spaces come from `env_id` (its
    gymnasium spec is also recorded, so Minari can recover the env), else from the arguments,
    else from the data (a Box of each column's shape; Discrete(max + 1) for integer actions).
    `dataset_id` (metadata) defaults to the directory's name plus `-v0`."""
    minari = import_minari(f'saving a Minari dataset to {path}')
    from minari.data_collector import EpisodeBuffer
    from minari.dataset.minari_storage import MinariStorage
    batch = as_batch(data).to_numpy()
    if len(batch) == 0:
        raise ValueError(f'save_minari: no transitions to save to {path}')
    _check_flat(batch)
    env_spec = None
    if env_id is not None:
        import gymnasium as gym
        env_spec = gym.spec(env_id)
        env = gym.make(env_id)
        observation_space, action_space = observation_space or env.observation_space, action_space or env.action_space
        env.close()
    observation_space = observation_space or _space_of(np.asarray(batch['obs']), 'obs')
    action_space = action_space or _space_of(np.asarray(batch['action']), 'action')
    truncated = np.asarray(batch['truncated'], bool) if 'truncated' in batch else np.zeros(len(batch), bool)
    episodes = []
    for i, rows in enumerate(episode_slices(batch)):
        observations = np.concatenate([np.asarray(batch['obs'][rows]), np.asarray(batch['next_obs'][rows])[-1:]])
        episodes.append(EpisodeBuffer(id=i, observations=observations, actions=np.asarray(batch['action'][rows]),
                                      rewards=np.asarray(batch['reward'][rows]), truncations=truncated[rows],
                                      terminations=np.asarray(batch['done'][rows], bool), infos={}))
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f'.{os.path.basename(path)}.{os.getpid()}.tmp')
    shutil.rmtree(tmp, ignore_errors=True)
    try:  # built aside, then renamed into place: a crash leaves the previous dataset or none
        os.makedirs(tmp)
        storage = MinariStorage.new(os.path.join(tmp, 'data'), observation_space=observation_space,
                                    action_space=action_space, env_spec=env_spec, data_format='hdf5')
        storage.update_metadata({'dataset_id': dataset_id or _default_id(path),
                                 'minari_version': minari.__version__, 'algorithm_name': 'ding'})
        storage.update_episodes(episodes)
        _replace_dir(tmp, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return path


def _replace_dir(src: str, dst: str) -> None:
    if os.path.exists(dst):
        old = f'{src}.old'
        os.replace(dst, old)
        os.replace(src, dst)
        shutil.rmtree(old)
    else:
        os.replace(src, dst)


def minari_data_dir(path_or_id: str) -> str:
    """The `data/` folder of a Minari dataset given as a directory, its data folder, or a local
    dataset id."""
    path = os.fspath(path_or_id)
    for candidate in (path, os.path.join(path, 'data')):
        if os.path.isfile(os.path.join(candidate, 'metadata.json')):
            return candidate
    if not os.path.isabs(path):
        root = os.environ.get('MINARI_DATASETS_PATH', os.path.join(os.path.expanduser('~'), '.minari', 'datasets'))
        local = os.path.join(root, path, 'data')
        if os.path.isfile(os.path.join(local, 'metadata.json')):
            return local
    raise FileNotFoundError(f'minari dataset: {path!r} is neither a Minari dataset directory nor a local dataset id '
                            f'(datasets are never downloaded; write one with save_minari or minari.DataCollector)')


def load_minari(path_or_id: str) -> Batch:
    """Transitions of every episode of a local Minari dataset, as columns."""
    import_minari(f'reading the Minari dataset {path_or_id}')
    from minari import MinariDataset
    dataset = MinariDataset(minari_data_dir(path_or_id))
    columns: Dict[str, list] = {k: [] for k in ('obs', 'action', 'reward', 'next_obs', 'done', 'truncated')}
    for episode in dataset.iterate_episodes():
        if isinstance(episode.observations, dict) or isinstance(episode.actions, dict):
            raise TypeError(f'minari dataset {path_or_id}: dict observation/action spaces are not read as transitions')
        observations = np.asarray(episode.observations)
        columns['obs'].append(observations[:-1])
        columns['next_obs'].append(observations[1:])
        columns['action'].append(np.asarray(episode.actions))
        columns['reward'].append(np.asarray(episode.rewards))
        columns['done'].append(np.asarray(episode.terminations, dtype=bool))
        columns['truncated'].append(np.asarray(episode.truncations, dtype=bool))
    if not columns['obs']:
        raise ValueError(f'minari dataset {path_or_id} has no episodes')
    return Batch({k: np.concatenate(v) for k, v in columns.items()})


@DATASET_REGISTRY.register('minari')
class MinariRLDataset(OfflineRLDataset):
    """A local Minari dataset as transitions; `cfg` is a config (`policy.collect.data_path`) or
    the dataset's directory / id."""

    def __init__(self, cfg: Any) -> None:
        path = cfg if isinstance(cfg, (str, os.PathLike)) else ((cfg.get('policy') or {}).get('collect') or {}).get(
            'data_path')
        if not path:
            raise ValueError('minari dataset: set cfg.policy.collect.data_path to a Minari dataset directory or a '
                             'local dataset id')
        super().__init__(load_minari(path), cfg)
