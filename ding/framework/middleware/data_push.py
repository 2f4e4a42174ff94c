"""Into the buffer: `data_pusher` (a whole collected Batch in one push), `sqil_data_pusher`,
`buffer_saver` (`offline_data_saver` is in offline.py)."""
import os
from collections.abc import Iterable, Mapping
from typing import Any, Optional

import numpy as np

from ding.data.batch import Batch, as_batch
from ding.framework.contract import contract, require_config
from ding.framework.middleware import _common


def _push_transitions(buffer_: Any, data: Any, group_by_env: Optional[bool]) -> None:
    batch = as_batch(data)
    meta = {}
    if 'priority' in batch:
        meta['priority'] = np.asarray(batch.pop('priority'))
    env_key = 'env_id' if 'env_id' in batch else 'env_data_id'  # else by the episode id (env_data_id)
    if group_by_env and env_key in batch:
        meta['env'] = np.asarray(batch[env_key]).reshape(len(batch))
    buffer_.push(batch, meta or None)


def _push_items(buffer_: Any, items: Any, group_by_env: Optional[bool]) -> None:
    """Pushes each item of `ctx.trajectories`, whatever its type. Dicts with the
    same fields are pushed as one Batch (the same rows, one copy); anything else item by item."""
    items = list(items)
    if items and all(isinstance(t, Mapping) for t in items) and all(t.keys() == items[0].keys() for t in items):
        try:
            batch = as_batch(items)
        except (ValueError, TypeError, RuntimeError):  # shapes differ: not one Batch
            batch = None
        if batch is not None:
            return _push_transitions(buffer_, batch, group_by_env)
    for item in items:
        meta = {'env': _env_of(item)} if group_by_env else {}
        if isinstance(item, Mapping) and 'priority' in item:  # priority_calculator's, for PER
            meta['priority'] = item['priority']
        buffer_.push(item, meta or None)


def _env_of(item: Any) -> Any:
    for key in ('env_data_id', 'env_id'):
        value = item.get(key) if isinstance(item, Mapping) else getattr(item, key, None)
        if value is not None:
            return np.asarray(value).reshape(-1)[0].item()
    return None


def _finishing() -> bool:
    task = _common.current_task()
    return task.running and task.finish


@_common.gated('learner')
def data_pusher(cfg: Any, buffer_: Any, group_by_env: Optional[bool] = None) -> Any:
    """Pushes `ctx.trajectories` (one Batch, one push) or each of `ctx.episodes` (one buffer
    item per episode) and clears the field. A `priority` column becomes the item priorities;
    `group_by_env` tags rows with meta `env` for `sample(groupby='env')`."""

    def _push(ctx: Any) -> None:
        if ctx.trajectories is not None:
            if isinstance(ctx.trajectories, Batch):  # our collectors: one push, one copy per column
                _push_transitions(buffer_, ctx.trajectories, group_by_env)
            else:
                _push_items(buffer_, ctx.trajectories, group_by_env)
            ctx.trajectories = None
        elif ctx.episodes is not None:
            for episode in ctx.episodes:  # a list is stored as one item: the whole episode
                buffer_.push(list(episode) if isinstance(episode, Iterable) else episode)
            ctx.episodes = None
        elif not _finishing():  # a peer ended the run while a distributed learner waited for data
            # keep this message word for word: tests and users' code compare it
            raise RuntimeError('Either ctx.trajectories or ctx.episodes should be not None.')

    # It reads whichever of the two a collector wrote, so neither is declared a required read.
    return contract(_push, writes=('trajectories', 'episodes'))


def sqil_data_pusher(cfg: Any, buffer_: Any, expert: bool) -> Any:
    """SQIL: pushes `ctx.trajectories` with every reward replaced by 1 (expert) or 0 (agent)."""

    def _push(ctx: Any) -> None:
        batch = as_batch(ctx.trajectories)
        batch['reward'] = np.full(len(batch), 1.0 if expert else 0.0, dtype=np.float32)
        _push_transitions(buffer_, batch, None)
        ctx.trajectories = None

    return contract(_push, reads=('trajectories', ), writes=('trajectories', ))


def buffer_saver(cfg: Any, buffer_: Any, every_envstep: int = 1000, replace: bool = False) -> Any:
    """Saves the buffer (`buffer_.save_data`) to `<exp_name>/replaybuffer/`:
    at its first call and then once `every_envstep` more env steps have passed;
    `replace` keeps only `data_latest.hkl`, otherwise one `data_envstep_<env_step>.hkl` per save.
    (The files hold our buffer format, which `DequeBuffer.load_data` reads, not hickle's.)"""
    require_config(cfg, 'buffer_saver', 'exp_name')
    directory = os.path.join(cfg.exp_name, 'replaybuffer')
    last = [None]

    def _save(ctx: Any) -> None:
        if last[0] is not None and ctx.env_step - last[0] < every_envstep:
            return
        last[0] = ctx.env_step
        name = 'data_latest.hkl' if replace else f'data_envstep_{ctx.env_step}.hkl'
        os.makedirs(directory, exist_ok=True)
        buffer_.save_data(os.path.join(directory, name))

    return contract(_save, reads=('env_step', ))
