"""Uniform draws shared by the buffer, group sampling and prioritized replay."""
import numpy as np


class InsufficientData(ValueError):
    """The buffer (or the part a middleware lets a sample see, e.g. `sample_range_view`) holds
    fewer rows than asked for."""


def affordable(size: int, available: int, replace: bool, ignore_insufficient: bool, partial: bool = True) -> int:
    """How many rows can be drawn; ValueError when short unless `ignore_insufficient`, then
    what there is (`partial`, as DI-engine's group sampling) or nothing (its plain sampling)."""
    short = available == 0 if replace else available < size
    if short and size > 0:
        if not ignore_insufficient:
            how = 'with' if replace else 'without'
            raise InsufficientData(f'cannot sample {size} rows {how} replacement from {available}; '
                                   f'pass ignore_insufficient=True to get fewer')
        return 0 if replace or not partial else available
    return size


def draw_positions(rng: np.random.Generator, n: int, size: int, replace: bool) -> np.ndarray:
    """`size` uniform positions in [0, n). Without replacement, a draw with replacement is
    kept when it has no repeats (the usual case for a small batch from a big buffer, and
    then exactly uniform); otherwise numpy's slower `choice` decides."""
    if size == 0:
        return np.zeros(0, dtype=np.int64)
    if replace or size * size < n:
        pos = np.minimum((rng.random(size) * n).astype(np.int64), n - 1)
        if replace:
            return pos
        ordered = np.sort(pos)
        if (ordered[1:] != ordered[:-1]).all():
            return pos
    return rng.choice(n, size, replace=False)
