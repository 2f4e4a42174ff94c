"""Pieces shared by the exploration-bonus reward models (RND, ICM): the kept training data,
the observation encoder, and how a bonus is fused into a sampled batch's reward.

Fusion, by `cfg.intrinsic_reward_type`, with w = `intrinsic_reward_weight`:
- 'add':    reward = reward / extrinsic_reward_norm_max (if extrinsic_reward_norm) + w * bonus
- 'new':    reward scaled the same way, the bonus in a new `intrinsic_reward` column
- 'assign': reward = bonus
For n-step rewards [B, n] the bonus goes to the first step: it belongs to the step taken from obs.
"""
from typing import Any, Dict, Optional

import numpy as np
import torch

from ding.data.batch import Batch, as_batch
from ding.model.common import ConvEncoder, FCEncoder

FUSIONS = ('add', 'new', 'assign')


def batch_of(data: Any) -> Batch:
    """A Batch of numpy columns from a Batch, a list of transitions or a dict of columns."""
    if not isinstance(data, Batch):
        data = as_batch(data if isinstance(data, dict) else list(data))
    return data.to_numpy()


def encoder(obs_shape: Any, hidden_size_list: Any, who: str) -> torch.nn.Module:
    """MLP for flat observations (an int or [N]), convolutions for [C, H, W] images."""
    shape = (obs_shape, ) if isinstance(obs_shape, int) else tuple(obs_shape)
    if len(shape) == 1:
        return FCEncoder(shape[0], list(hidden_size_list))
    if len(shape) == 3:
        return ConvEncoder(shape, list(hidden_size_list))
    raise ValueError(f'{who}: obs_shape must be an int, [N] or [C, H, W]; got {obs_shape!r}')


def minmax(x: np.ndarray) -> np.ndarray:
    """Scaled to [0, 1] within the batch (how a bonus is normalised)."""
    return ((x - x.min()) / (x.max() - x.min() + 1e-8)).astype(np.float32)


def fuse_bonus(batch: Batch, bonus: np.ndarray, cfg: Any) -> Batch:
    """A new Batch sharing `batch`'s columns but the reward (see the module docstring)."""
    reward = batch['reward']
    reward = reward.detach().cpu().numpy() if isinstance(reward, torch.Tensor) else np.asarray(reward)
    reward = reward.astype(np.float32)  # a copy: the buffer's column is never written
    kind = cfg.intrinsic_reward_type
    if cfg.extrinsic_reward_norm and kind != 'assign':
        reward = reward / cfg.extrinsic_reward_norm_max
    out = Batch(dict(batch.items()))
    if kind == 'assign':
        reward = bonus.reshape((len(bonus), ) + (1, ) * (reward.ndim - 1)) * np.ones_like(reward)
    elif kind == 'add':
        if reward.ndim == 1:
            reward = reward + cfg.intrinsic_reward_weight * bonus
        else:
            reward = reward.copy()
            reward[:, 0] += cfg.intrinsic_reward_weight * bonus
    else:
        out['intrinsic_reward'] = bonus
    out['reward'] = reward
    return out


def check_fusion(cfg: Any, who: str) -> None:
    if cfg.get('obs_shape') is None:
        raise ValueError(f'{who}: reward_model.obs_shape is required (e.g. obs_shape=4 for CartPole)')
    if cfg.intrinsic_reward_type not in FUSIONS:
        raise ValueError(f'{who}: intrinsic_reward_type must be one of {FUSIONS}, got {cfg.intrinsic_reward_type!r}')
    if isinstance(cfg.batch_size, bool) or not isinstance(cfg.batch_size, int) or cfg.batch_size < 1:
        raise ValueError(f'{who}: batch_size must be a positive int, got {cfg.batch_size!r}')


class KeptColumns:
    """The newest `capacity` rows of some columns (a ring), to sample training batches from."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._cols: Optional[Dict[str, np.ndarray]] = None
        self._size = 0
        self._next = 0

    def add(self, **columns: np.ndarray) -> None:
        n = len(next(iter(columns.values())))
        if n == 0:
            return
        if self._cols is None:
            self._cols = {k: np.zeros((self.capacity, ) + np.shape(v)[1:], dtype=np.asarray(v).dtype)
                          for k, v in columns.items()}
        rows = (self._next + np.arange(min(n, self.capacity))) % self.capacity
        for k, v in columns.items():
            self._cols[k][rows] = np.asarray(v)[-self.capacity:]
        self._next = int((rows[-1] + 1) % self.capacity)
        self._size = min(self.capacity, self._size + n)

    def sample(self, n: int) -> Dict[str, np.ndarray]:
        rows = np.random.randint(0, self._size, min(n, self._size))
        return {k: v[rows] for k, v in self._cols.items()}

    def clear(self) -> None:
        self._size, self._next = 0, 0

    def __len__(self) -> int:
        return self._size
