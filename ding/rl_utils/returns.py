"""Advantage and return estimators (GAE, Monte-Carlo returns) over time-major arrays.

Episodes may end in two ways, and they must be told apart:
- *terminated* (`done`): the state after it has no value; do not bootstrap.
- *truncated* (time limit) or the end of a collected segment: the episode goes on, so the
  value of the step's `next_obs` (the terminal obs, never the reset one) stands in for the
  rewards that were not seen.
"""
from typing import Union

import numpy as np
import torch

Array = Union[np.ndarray, torch.Tensor]


def gae(reward: Array, value: Array, next_value: Array, terminated: Array, episode_end: Array,
        gamma: float = 0.99, lambda_: float = 0.95) -> Array:
    """Advantages A_t of one or several (`[T]` or `[T, B]`) time-major sequences.

        delta_t = r_t + gamma * (1 - terminated_t) * V(s_{t+1}) - V(s_t)
        A_t     = delta_t + gamma * lambda * (1 - end_t) * A_{t+1}

    `next_value[t]` is V(next_obs_t): inside an episode it equals `value[t + 1]`; at a
    truncation or at the end of the sequence it is the critic's value of the terminal obs.
    `episode_end[t]` is True where the sum must stop: terminated, truncated or the sequence's
    last step. Returns float32 A shaped like `reward`, a tensor if `reward` is one (return = A + V).
    """
    as_torch = isinstance(reward, torch.Tensor)
    r, v, nv = (_np(x, np.float64) for x in (reward, value, next_value))
    keep_value = 1.0 - _np(terminated, np.float64)
    keep_trace = 1.0 - _np(episode_end, np.float64)
    delta = r + gamma * keep_value * nv - v
    adv = np.zeros_like(delta)
    running = np.zeros_like(delta[0])
    for t in range(len(delta) - 1, -1, -1):
        running = delta[t] + gamma * lambda_ * keep_trace[t] * running
        adv[t] = running
    if as_torch:
        return torch.as_tensor(adv, dtype=reward.dtype, device=reward.device)
    return adv.astype(np.float32)


def discounted_return(reward: Array, episode_end: Array, gamma: float = 0.99) -> Array:
    """Monte-Carlo return-to-go G_t = r_t + gamma * (1 - end_t) * G_{t+1}, no bootstrap."""
    as_torch = isinstance(reward, torch.Tensor)
    r = _np(reward, np.float64)
    keep = 1.0 - _np(episode_end, np.float64)
    ret = np.zeros_like(r)
    running = np.zeros_like(r[0])
    for t in range(len(r) - 1, -1, -1):
        running = r[t] + gamma * keep[t] * running
        ret[t] = running
    if as_torch:
        return torch.as_tensor(ret, dtype=reward.dtype, device=reward.device)
    return ret.astype(np.float32)


def _np(x: Array, dtype) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    return np.asarray(x, dtype=dtype)
