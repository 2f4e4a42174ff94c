"""Prioritized *sequence* replay (R2D2): `PriorityExperienceReplay` drawing windows of
`unroll_len` consecutive rows of one group (`sample(size, groupby=key, unroll_len=T)`).

Priorities stay per row, in PER's sum tree. A draw picks a row with probability
p_i^alpha / sum over the rows that can be in a window (groups of at least T rows), and the
row picks its window: the window starting at it, or, for a row among the group's last T-1,
the group's last window (with the buffer's `sliced`, the window of T rows holding it, as
uniform group sampling cuts them). The learner's sequence priority (R2D2's
0.9 * max + 0.1 * mean |TD|) is then written to every row of the window
(`write_sequence_priorities`), so a window's priority is that of its start row, and rows
that were only inside a learned window are up to date too.

Importance weights compare with drawing rows uniformly: a window that k rows lead to, of
mean mass m, has probability k*m/M against k/N, so w = (N*m/M)^-beta, normalised by the
largest possible weight (at the smallest mass): w = (m / m_min)^-beta. Each window's weight is
in its meta and column `priority_IS` (the same value on each of its T rows).
"""
from typing import Any, Callable, List

import numpy as np

from ding.data.buffer.buffered_data import SampledBatch
from ding.data.buffer.grouping import _split_by_key
from ding.data.buffer.sampling import affordable


def sample_windows(per: Any, chain: Callable, size: int, groupby: str, unroll_len: int,
                   ignore_insufficient: bool) -> List[SampledBatch]:
    """`size` windows drawn by priority (stratified, so a window can repeat), one SampledBatch each."""
    if size is None:
        raise ValueError('sample(groupby=..., unroll_len=...) needs size: the number of windows to draw')
    buffer = per.buffer
    groups = [g for g in _split_by_key(buffer, buffer._live_slots(), groupby) if len(g) >= unroll_len]
    size = affordable(size, len(groups), True, ignore_insufficient)
    if size == 0:
        return []
    slots = np.concatenate(groups)
    lengths = np.array([len(g) for g in groups])
    group_start = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    mass = per.tree.leaves[slots]
    cum = np.cumsum(mass)
    total = cum[-1]
    if not total > 0:
        raise ValueError('prioritized sequence replay: every row that can start a window has priority 0')
    draws = (np.arange(size) + buffer.rng.random(size)) * (total / size)
    flat = np.minimum(np.searchsorted(cum, draws, side='right'), len(slots) - 1)
    group = np.searchsorted(group_start, flat, side='right') - 1
    pos, n = flat - group_start[group], lengths[group]
    start, lead_lo, lead_hi = _window_of(pos, n, unroll_len, bool(getattr(buffer, 'sliced', False)))
    # mean mass of the rows leading to each window: (cum[hi-1] - cum[lo-1]) / (hi - lo)
    base = group_start[group]
    below = np.where(base + lead_lo > 0, cum[np.maximum(base + lead_lo - 1, 0)], 0.0)
    window_mass = (cum[base + lead_hi - 1] - below) / (lead_hi - lead_lo)
    window_slots = slots[(base + start)[:, None] + np.arange(unroll_len)]
    ids = buffer.ids_at(window_slots.reshape(-1))
    priority = per.priority[window_slots]
    weights = None
    if per.IS_weight:
        positive = mass[mass > 0]
        weights = ((window_mass / positive.min())**(-per.beta)).astype(np.float32)
        per.beta = min(1.0, per.beta + per.beta_step)
    sampled = chain(indices=ids)
    out = []
    for i in range(size):
        window = sampled.subset(slice(i * unroll_len, (i + 1) * unroll_len))
        window.meta['priority'] = priority[i]
        if weights is not None:
            column = np.full(unroll_len, weights[i], dtype=np.float32)
            window.meta['priority_IS'] = column
            window.batch['priority_IS'] = column
        out.append(window)
    return out


def _window_of(pos: np.ndarray, n: np.ndarray, unroll_len: int, sliced: bool):
    """For drawn rows at `pos` of groups of `n` rows: the window start and the range
    [lo, hi) of the group's rows that lead to that same window."""
    last = n - unroll_len
    if not sliced:
        start = np.minimum(pos, last)
        lo = start
        hi = np.where(start == last, n, start + 1)
        return start, lo, hi
    chunk, last_chunk = pos // unroll_len, (n - 1) // unroll_len
    in_last = chunk == last_chunk
    start = np.where(in_last, last, chunk * unroll_len)
    lo = chunk * unroll_len
    hi = np.where(in_last, n, lo + unroll_len)
    return start, lo, hi


def write_sequence_priorities(buffer: Any, index: np.ndarray, priority: Any) -> None:
    """The learner's per-window priorities [B] onto every row of the windows `index` [B, T]
    (a row in two sampled windows keeps the later one's)."""
    index = np.asarray(index)
    priority = np.asarray(priority, dtype=np.float64).reshape(-1)
    if index.ndim != 2 or len(priority) != len(index):
        raise ValueError(f'sequence priorities: expected one priority per window of ids [B, T], got '
                         f'{len(priority)} priorities for ids of shape {list(index.shape)}')
    buffer.update(index.reshape(-1), meta={'priority': np.repeat(priority, index.shape[1])})
