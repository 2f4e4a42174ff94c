"""Into the buffer: `data_pusher` (a whole collected Batch in one push), `sqil_data_pusher`,
`buffer_saver`, `offline_data_saver`."""
import os
from typing import Any, Optional

import numpy as np

from ding.data.batch import Batch, as_batch
from ding.framework.contract import contract, require_config
from ding.utils.fileio import atomic_torch_save


def _push_transitions(buffer_: Any, data: Any, group_by_env: Optional[bool]) -> None:
    batch = as_batch(data)
    meta = {}
    if 'priority' in batch:
        meta['priority'] = np.asarray(batch.pop('priority'))
    if group_by_env and 'env_id' in batch:
        meta['env'] = np.asarray(batch['env_id'])
    buffer_.push(batch, meta or None)


def data_pusher(cfg: Any, buffer_: Any, group_by_env: Optional[bool] = None) -> Any:
    """Pushes `ctx.trajectories` (one Batch, one push) or each of `ctx.episodes` (one buffer
    item per episode) and clears the field. A `priority` column becomes the item priorities;
    `group_by_env` tags rows with meta `env` for `sample(groupby='env')`."""

    def _push(ctx: Any) -> None:
        if ctx.trajectories is not None:
            _push_transitions(buffer_, ctx.trajectories, group_by_env)
            ctx.trajectories = None
        elif ctx.episodes is not None:
            for episode in ctx.episodes:
                buffer_.push(list(episode))  # a list is stored as one item: the whole episode
            ctx.episodes = None
        else:
            raise RuntimeError('data_pusher: neither ctx.trajectories nor ctx.episodes is set; '
                               'put a collector (StepCollector / EpisodeCollector) before it')

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
    """Saves the buffer to `<exp_name>/buffer/` every `every_envstep` env steps; `replace`
    keeps only `buffer_latest.pkl`, otherwise one file per save."""
    require_config(cfg, 'buffer_saver', 'exp_name')
    directory = os.path.join(cfg.exp_name, 'buffer')
    last = [0]

    def _save(ctx: Any) -> None:
        if ctx.env_step - last[0] < every_envstep:
            return
        last[0] = ctx.env_step
        name = 'buffer_latest.pkl' if replace else f'buffer_envstep_{ctx.env_step}.pkl'
        os.makedirs(directory, exist_ok=True)
        buffer_.save_data(os.path.join(directory, name))

    return contract(_save, reads=('env_step', ))


def offline_data_saver(data_path: str, data_type: str = 'hdf5') -> Any:
    """Saves `ctx.trajectories` to `data_path` (hdf5 columns, or 'naive': a torch pickle of
    the column dict) and clears the field."""
    if data_type not in ('hdf5', 'naive'):
        raise ValueError(f"offline_data_saver: data_type must be 'hdf5' or 'naive', got {data_type!r}")

    def _save(ctx: Any) -> None:
        batch = as_batch(ctx.trajectories).to_numpy()
        if data_type == 'naive':
            atomic_torch_save(batch.to_dict(), data_path)
        else:
            _save_hdf5(batch, data_path)
        ctx.trajectories = None

    return contract(_save, reads=('trajectories', ), writes=('trajectories', ))


def _save_hdf5(batch: Batch, path: str) -> None:
    try:
        import h5py
    except ImportError as err:
        raise ImportError("offline_data_saver(data_type='hdf5') needs h5py: pip install h5py "
                          "(or use data_type='naive')") from err
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + '.tmp'
    with h5py.File(tmp, 'w') as f:
        _write_group(f, batch)
    os.replace(tmp, path)


def _write_group(group: Any, batch: Batch) -> None:
    for k, v in batch.items():
        if isinstance(v, Batch):
            _write_group(group.create_group(k), v)
        else:
            group.create_dataset(k, data=v)
