"""`RunningMeanStd`: the running mean / variance / count behind observation and reward
normalisation, in float64.

Why one small object: it is the whole state of a normaliser, so the same object is what the
collector side updates, what the evaluator side reads frozen, what a checkpoint saves
(`state_dict`, plain float64 arrays that reload bit for bit) and what an exported model
carries (`as_module`).
"""
from typing import Any, Dict, Sequence, Tuple

import numpy as np


class RunningMeanStd:
    """`RunningMeanStd(epsilon=1e-4, shape=())`. Starts at mean 0, var 1, count `epsilon`,
    so `std` is defined before any data."""

    def __init__(self, epsilon: float = 1e-4, shape: Tuple[int, ...] = ()) -> None:
        self._epsilon = float(epsilon)
        self._shape = tuple(shape)
        self.frozen = False  # a frozen object ignores `update` (evaluation reads it as is)
        self.reset()

    def reset(self) -> None:
        self._mean = np.zeros(self._shape, dtype=np.float64)
        self._var = np.ones(self._shape, dtype=np.float64)
        self._count = self._epsilon

    def update(self, batch: Any) -> None:
        """Fold in a batch `[n, *shape]` (Chan et al.'s parallel combination of moments)."""
        if self.frozen:
            return
        x = np.asarray(batch, dtype=np.float64)
        if x.shape[1:] != self._shape:
            raise ValueError(f'RunningMeanStd of shape {self._shape} got a batch of shape {x.shape}; '
                             f'expected [n, *{self._shape}]')
        if x.shape[0] == 0:
            return
        if x.shape[0] == 1:  # one env's step: its mean is the row and its variance 0, exactly, at a
            self._combine(x[0], 0.0, 1)  # fraction of numpy's reductions' cost (twice per step per normaliser)
            return
        self._combine(x.mean(axis=0), x.var(axis=0), x.shape[0])

    def merge(self, other: 'RunningMeanStd') -> None:
        """Fold in the data another object has seen (less its starting `epsilon` count)."""
        count = other.count - other._epsilon
        if count > 0:
            self._combine(other.mean, other.var, count)

    def _combine(self, mean: np.ndarray, var: np.ndarray, count: float) -> None:
        total = self._count + count
        delta = mean - self._mean
        self._mean = self._mean + delta * (count / total)
        m2 = self._var * self._count + var * count + np.square(delta) * (self._count * count / total)
        self._var = m2 / total
        self._count = total

    # --- reading -----------------------------------------------------------------------------
    @property
    def mean(self) -> np.ndarray:
        return self._mean

    @property
    def var(self) -> np.ndarray:
        return self._var

    @property
    def count(self) -> float:
        return self._count

    @property
    def std(self) -> np.ndarray:
        """sqrt(var) + epsilon."""
        return np.sqrt(self._var) + self._epsilon

    @property
    def shape(self) -> Tuple[int, ...]:
        return self._shape

    def normalize(self, x: Any, clip: Sequence[float] = None) -> np.ndarray:
        out = (np.asarray(x, dtype=np.float64) - self._mean) / self.std
        return out if clip is None else np.clip(out, clip[0], clip[1])

    # --- checkpoint / export -----------------------------------------------------------------
    def state_dict(self) -> Dict[str, Any]:
        return {'mean': self._mean.copy(), 'var': self._var.copy(), 'count': self._count, 'epsilon': self._epsilon,
                'shape': self._shape}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        shape = tuple(state['shape'])
        if shape != self._shape:
            raise ValueError(f'RunningMeanStd of shape {self._shape} cannot load statistics of shape {shape}')
        self._mean = np.array(state['mean'], dtype=np.float64)
        self._var = np.array(state['var'], dtype=np.float64)
        self._count = float(state['count'])
        self._epsilon = float(state['epsilon'])

    def copy(self) -> 'RunningMeanStd':
        out = RunningMeanStd(self._epsilon, self._shape)
        out.load_state_dict(self.state_dict())
        return out

    def as_module(self, clip: Sequence[float] = None) -> Any:
        """A frozen torch module computing `normalize` (float32), to put in front of an exported model."""
        import torch

        class ObsNormalizer(torch.nn.Module):

            def __init__(self, mean: np.ndarray, std: np.ndarray, clip: Any) -> None:
                super().__init__()
                self.register_buffer('mean', torch.as_tensor(mean, dtype=torch.float32))
                self.register_buffer('std', torch.as_tensor(std, dtype=torch.float32))
                self.clip = None if clip is None else (float(clip[0]), float(clip[1]))

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                out = (x - self.mean) / self.std
                return out if self.clip is None else out.clamp(*self.clip)

        return ObsNormalizer(self._mean, self.std, clip)

    def __repr__(self) -> str:
        return f'RunningMeanStd(shape={self._shape}, count={self._count:g}, frozen={self.frozen})'
