"""Sequence replay for recurrent learners (R2D2): `sample_sequences(buffer, size, unroll_len)`
draws `size` windows of `unroll_len` consecutive rows of one env and returns them as one
Batch whose columns are [size, unroll_len, ...], with the buffer ids [size, unroll_len].

The buffer keeps transitions as pushed: the rows of one env are in time order (collectors
emit each env's steps in order and continue its episode across calls). Rows are grouped by
the `env_id` column, or by the push-time meta `env` (`data_pusher(..., group_by_env=True)`)
when there is no such column. A window may run over an episode end; the learner sees that
from the window's own done / truncated columns (ding/policy/r2d2.py resets its state there).
Windows are drawn uniformly (a group, then a start); behind `PriorityExperienceReplay` they
are drawn by priority (ding/data/buffer/middleware/sequence_priority.py), each window's
importance weight becomes the column `priority_IS` [size], and that module's
`write_sequence_priorities` takes the learner's per-window priorities back.
"""
import contextlib
from typing import Any, Optional, Tuple

import numpy as np

from ding.data.batch import Batch


def sample_sequences(buffer: Any, size: int, unroll_len: int) -> Optional[Tuple[Batch, np.ndarray]]:
    """(Batch [size, unroll_len, ...], ids [size, unroll_len]), or None while no env has
    `unroll_len` rows yet."""
    if unroll_len < 2:
        raise ValueError(f'sample_sequences needs unroll_len >= 2, got {unroll_len}')
    # a FrameBuffer hands the windows back with frame ids, and their frames are read once after
    # the concatenation, under the buffer's lock (a push in between could overwrite them)
    ids_only = getattr(buffer, 'frame_ids_only', None)
    with buffer.lock if ids_only is not None else contextlib.nullcontext():
        with ids_only() if ids_only is not None else contextlib.nullcontext():
            sampled = _draw_windows(buffer, size, unroll_len)
        if not sampled:
            return None
        if getattr(sampled[0], 'whole_items', False):
            raise TypeError('sequence replay needs a buffer of transition rows (pushed as a Batch or dicts of arrays), '
                            'not whole objects')
        rows = Batch.cat([s.batch for s in sampled])
        if ids_only is not None:
            rows = buffer.read_frames(rows)
    batch = rows.apply(lambda v: v.reshape((len(sampled), unroll_len) + tuple(v.shape[1:])))
    index = np.stack([np.asarray(s.index) for s in sampled])
    if 'priority_IS' in batch:  # one weight per window, repeated on its rows
        batch['priority_IS'] = batch['priority_IS'][:, 0]
    return batch, index


def _draw_windows(buffer: Any, size: int, unroll_len: int) -> list:
    """The buffer's grouped sample of `size` windows, grouped by `env_id` or else by meta `env`."""
    for key in ('env_id', 'env'):
        try:
            return buffer.sample(size, groupby=key, unroll_len=unroll_len, replace=True, ignore_insufficient=True)
        except KeyError:
            continue
    raise KeyError("sequence replay groups rows by env, but the buffer rows have no 'env_id' column and were "
                   "pushed without meta 'env'; push with data_pusher(cfg, buffer_, group_by_env=True)")
