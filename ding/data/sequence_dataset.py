"""`SequenceDataset` (data type 'sequence', also registered as 'd4rl_trajectory'): fixed-length windows
of episodes for Decision Transformer.

Any transition file `create_dataset` reads (naive, hdf5, D4RL layout) is cut into episodes at
`done | truncated`; so is the DT episode pickle for discrete envs (`dqn_data_1000eps.pkl`: a
list of episodes, each a list of transition dicts with obs, next_obs, action, reward), whose
episodes end at their last transition. Row i of the dataset is the window of `cfg.policy.context_len` (K) steps of
one episode starting at transition i: `timesteps` [K] (step within the episode), `obs` [K, d],
`action` [K, ...], `returns_to_go` [K] (undiscounted return from that step to the episode end)
and `mask` [K] (False on the padding after the episode's last step). Windows are gathered on
demand from the transition columns, so memory stays that of the transitions.
"""
from typing import Any, Tuple

import os
import pickle

import numpy as np

from ding.data.batch import Batch
from ding.data.offline_dataset import OfflineRLDataset, data_path_of, load_hdf5, load_naive
from ding.utils.registry import DATASET_REGISTRY


def episode_bounds(done: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(start, end) row of each row's episode, end inclusive; the data's last row ends one."""
    n = len(done)
    ends = np.flatnonzero(done)
    if n and (not len(ends) or ends[-1] != n - 1):
        ends = np.append(ends, n - 1)
    episode = np.searchsorted(ends, np.arange(n))  # index of the episode each row belongs to
    starts = np.concatenate([[0], ends[:-1] + 1])
    return starts[episode], ends[episode]


def returns_to_go(reward: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """sum of reward[t:end + 1] for every row t (undiscounted, within its episode)."""
    suffix = np.cumsum(reward[::-1])[::-1]  # sum of reward[t:] over the whole data
    after_end = np.append(suffix, 0.0)[end + 1]
    return suffix - after_end


class SequenceWindows:
    """Indexable like a Batch: `windows[rows]` -> Batch of the windows starting at `rows`."""

    def __init__(self, columns: Batch, context_len: int) -> None:
        done = np.asarray(columns['done'], dtype=bool)
        if 'truncated' in columns:
            done = done | np.asarray(columns['truncated'], dtype=bool)
        self.start, self.end = episode_bounds(done)
        self.obs = np.asarray(columns['obs'], dtype=np.float32)
        self.action = np.asarray(columns['action'])
        self.rtg = returns_to_go(np.asarray(columns['reward'], dtype=np.float64).reshape(-1), self.start,
                                 self.end).astype(np.float32)
        self.timestep = np.arange(len(done)) - self.start
        self.context_len = int(context_len)

    def __len__(self) -> int:
        return len(self.obs)

    def __getitem__(self, rows: Any) -> Batch:
        rows = np.atleast_1d(np.asarray(rows, dtype=np.int64))
        index = rows[:, None] + np.arange(self.context_len)[None, :]  # [B, K]
        mask = index <= self.end[rows][:, None]
        index = np.where(mask, index, rows[:, None])  # padding repeats the first row; the mask hides it
        return Batch(timesteps=np.where(mask, self.timestep[index], 0), obs=_masked(self.obs[index], mask),
                     action=_masked(self.action[index], mask), returns_to_go=self.rtg[index] * mask, mask=mask)


def _masked(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """values [B, K, ...] with the padding steps (mask [B, K] False) zeroed."""
    return values * mask.reshape(mask.shape + (1, ) * (values.ndim - 2))


@DATASET_REGISTRY.register('sequence')
@DATASET_REGISTRY.register('d4rl_trajectory')
class SequenceDataset(OfflineRLDataset):
    """`cfg.policy.collect.data_path` (else `cfg.dataset.data_dir_prefix`): hdf5, D4RL
    hdf5, a naive pickle or an episode pickle, in windows of `cfg.policy.context_len` (or
    `cfg.policy.model.context_len`)."""

    def __init__(self, cfg: Any) -> None:
        path = data_path_of(_with_dataset_path(cfg), 'sequence')
        super().__init__(load_sequence_file(path), cfg)
        policy = cfg.get('policy') or {}
        context_len = policy.get('context_len') or (policy.get('model') or {}).get('context_len')
        if not context_len:
            raise ValueError('sequence dataset: set cfg.policy.context_len (the window length K)')
        self.transitions = self.batch
        self.batch = SequenceWindows(self.transitions, context_len)

    def __getitem__(self, i: int) -> dict:
        return self.batch[int(i)][0].to_dict()

    def get_state_stats(self) -> Tuple[np.ndarray, np.ndarray]:
        """(mean, std) of the observations (dt.py puts them in cfg.policy)."""
        return self.mean.astype(np.float32), self.std.astype(np.float32)


def _with_dataset_path(cfg: Any) -> Any:
    """A DT config may name the file only as `cfg.dataset.data_dir_prefix`."""
    if isinstance(cfg, dict) and not ((cfg.get('policy') or {}).get('collect') or {}).get('data_path'):
        prefix = (cfg.get('dataset') or {}).get('data_dir_prefix')
        if prefix:
            return prefix
    return cfg


def load_sequence_file(path: str) -> Batch:
    """Transition columns of an hdf5 file, a naive pickle or a list-of-episodes pickle."""
    if not path.endswith(('.pkl', '.pickle', '.pt')):
        return load_hdf5(path)
    with open(path, 'rb') as f:
        try:
            data = pickle.load(f)
        except (pickle.UnpicklingError, ValueError, EOFError):
            data = None  # not a plain pickle (e.g. torch-saved): load_naive reads it or says why
    if isinstance(data, list) and data and isinstance(data[0], (list, tuple)):
        return episodes_to_columns(data, path)
    return load_naive(path)


def episodes_to_columns(episodes: list, path: str = 'the data') -> Batch:
    """Columns of a list of episodes (lists of transition dicts); each episode's last transition
    ends it (`truncated` when it is not `done`), so windows never cross episodes."""
    columns = {k: [] for k in ('obs', 'action', 'reward', 'next_obs', 'done', 'truncated')}
    for number, episode in enumerate(episodes):
        if not len(episode):
            raise ValueError(f'{os.fspath(path)}: episode {number} has no transitions')
        for step, transition in enumerate(episode):
            missing = [k for k in ('obs', 'action', 'reward', 'next_obs') if k not in transition]
            if missing:
                raise KeyError(f'{os.fspath(path)}: episode {number} step {step} has no {missing}')
            last = step == len(episode) - 1
            done = bool(np.asarray(transition.get('done', False)).reshape(()))
            for key in ('obs', 'action', 'next_obs'):
                columns[key].append(np.asarray(transition[key]))
            columns['reward'].append(np.asarray(transition['reward'], dtype=np.float32).reshape(()))
            columns['done'].append(done)
            columns['truncated'].append(last and not done)
    return Batch({k: np.asarray(v) for k, v in columns.items()})
