"""Uniform draws shared by the buffer, group sampling and prioritized replay, and the sample
arguments as the buffer-middleware protocol passes them."""
from typing import Any, Dict, Tuple

import numpy as np

# `Buffer.sample`'s parameters in positional order
SAMPLE_PARAMS = ('size', 'indices', 'replace', 'sample_range', 'ignore_insufficient', 'groupby', 'unroll_len')


def sample_arguments(args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """A sample call's arguments (positional ones in SAMPLE_PARAMS order, as a caller or a
    middleware may pass them) as one dict of keywords."""
    if len(args) > len(SAMPLE_PARAMS):
        raise TypeError(f'sample takes at most {len(SAMPLE_PARAMS)} positional arguments {SAMPLE_PARAMS}, '
                        f'got {len(args)}')
    named = dict(kwargs)
    for name, value in zip(SAMPLE_PARAMS, args):
        if name in named:
            raise TypeError(f'sample got {name!r} both by position and by name')
        named[name] = value
    return named


def indices_given(indices: Any) -> bool:
    """`indices` is read by truth value: a middleware that passes `replace` positionally
    (`chain(size, replace)`) puts False there, and that is no indices either."""
    return indices is not None and indices is not False


class InsufficientData(ValueError):
    """The buffer (or the part a middleware lets a sample see, e.g. `sample_range_view`) holds
    fewer rows than asked for."""


def affordable(size: int, available: int, replace: bool, ignore_insufficient: bool, partial: bool = True) -> int:
    """How many rows can be drawn; ValueError when short unless `ignore_insufficient`, then
    what there is (`partial`, as group sampling does) or nothing (as plain sampling does)."""
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
