"""Offline RL middleware: `offline_data_fetcher` (minibatches of a dataset, epoch after epoch) and
`OfflineRunStateSaver` (checkpoints that resume an offline run exactly: learner, fetcher
position, ctx counters and RNGs, every `every_train_iter` updates). `offline_data_saver`
(collected transitions -> a dataset file) is in data_processor.py."""
import logging
import os
from typing import Any, Callable, Dict, Optional

import numpy as np

from ding.framework.contract import contract, require_config
from ding.framework.middleware import _common

logger = logging.getLogger('ding.offline')


class _OfflineDataFetcher:
    """See `offline_data_fetcher`. A dataset holding its columns (`.batch`, every dataset of
    `create_dataset`) is indexed directly, one gather per column per minibatch; any other torch
    Dataset goes through a DataLoader with `collate_fn`."""

    def __init__(self, cfg: Any, dataset: Any, collate_fn: Optional[Callable], seed: Optional[int]) -> None:
        require_config(cfg, 'offline_data_fetcher', 'policy.learn.batch_size')
        self._batch_size = int(cfg.policy.learn.batch_size)
        if self._batch_size <= 0:
            raise ValueError(f'offline_data_fetcher: policy.learn.batch_size must be positive, got {self._batch_size}')
        if len(dataset) == 0:
            raise ValueError('offline_data_fetcher: the dataset is empty')
        self._columns = getattr(dataset, 'batch', None) if collate_fn is None else None
        if self._columns is None:
            from torch.utils.data import DataLoader
            self._loader = DataLoader(dataset, batch_size=self._batch_size, shuffle=True,
                                      collate_fn=collate_fn or (lambda rows: rows))
            self._iter = iter(self._loader)
        self._rng = np.random.default_rng(np.random.randint(2**31) if seed is None else seed)
        self._order = self._rng.permutation(len(dataset))
        self._pos = 0
        contract(self, reads=('train_epoch', 'trained_env_step'), writes=('train_data', 'train_epoch',
                                                                           'trained_env_step'),
                 name='offline_data_fetcher')

    def _next_columns(self, ctx: Any) -> Any:
        if self._pos >= len(self._order):  # a new epoch, freshly shuffled
            ctx.train_epoch += 1
            self._order = self._rng.permutation(len(self._order))
            self._pos = 0
        index = self._order[self._pos:self._pos + self._batch_size]
        self._pos += len(index)
        return self._columns[np.sort(index)]  # sorted: a faster gather, the same rows

    def _next_loaded(self, ctx: Any) -> Any:
        try:
            return next(self._iter)
        except StopIteration:
            ctx.train_epoch += 1
            self._iter = iter(self._loader)
            return next(self._iter)

    def __call__(self, ctx: Any) -> None:
        if 'train_epoch' not in ctx.kept_names:  # OfflineRLContext does not keep it
            ctx.keep('train_epoch')
        data = self._next_columns(ctx) if self._columns is not None else self._next_loaded(ctx)
        ctx.train_data = data
        ctx.trained_env_step += len(data)

    def state_dict(self) -> Dict[str, Any]:
        """Where the fetcher is in its epoch (exact for column datasets; a DataLoader restarts its epoch)."""
        return {'order': self._order.copy(), 'pos': self._pos, 'rng': self._rng.bit_generator.state}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        if len(state['order']) != len(self._order):
            raise ValueError(f'offline_data_fetcher: the checkpoint was taken on a dataset of {len(state["order"])} '
                             f'rows, this one has {len(self._order)}')
        self._order, self._pos = np.asarray(state['order']), int(state['pos'])
        self._rng.bit_generator.state = state['rng']


@_common.gated('learner')
def offline_data_fetcher(cfg: Any, dataset: Any, collate_fn: Optional[Callable] = None,
                         seed: Optional[int] = None) -> Any:
    """w: train_data, a minibatch of `cfg.policy.learn.batch_size` rows of `dataset` (shuffled,
    each row once per epoch; the last minibatch of an epoch may be smaller), train_epoch (+1 when
    an epoch starts over), trained_env_step (+rows). `seed` fixes the shuffling (default: drawn
    from numpy's global generator, so `set_pkg_seed` fixes it)."""
    return _OfflineDataFetcher(cfg, dataset, collate_fn, seed)


class OfflineRunStateSaver:
    """`OfflineRunStateSaver(save_dir, policy, every_train_iter=1000, resume=False, extra=None)`:
    RunStateSaver's checkpoint (`<save_dir>/ckpt/run_state.pt`) for an offline run, taken every
    `every_train_iter` updates and when the task finishes. `extra` objects with
    state_dict/load_state_dict ride along: pass the fetcher (its epoch position) and the
    CkptSaver (its best eval). Register it FIRST; with `resume=True` the first step restores."""

    def __init__(self, save_dir: str, policy: Any, every_train_iter: int = 1000, resume: bool = False,
                 extra: Optional[Dict[str, Any]] = None) -> None:
        from ding.framework.middleware.run_state_file import previous_path
        from ding.utils.run_dir import RUN_STATE_NAME
        if every_train_iter is None or int(every_train_iter) <= 0:
            raise ValueError(f'OfflineRunStateSaver: every_train_iter must be positive, got {every_train_iter}')
        self.ckpt_dir = os.path.join(os.fspath(save_dir), 'ckpt')
        self.path = os.path.join(self.ckpt_dir, RUN_STATE_NAME)
        self._learn = policy.learn_mode if hasattr(policy, 'learn_mode') else policy
        self._extra = dict(extra or {})
        self._every = int(every_train_iter)
        self._pending_resume = bool(resume)
        self._last_saved: Optional[int] = None
        if resume and not (os.path.isfile(self.path) or os.path.isfile(previous_path(self.path))):
            raise FileNotFoundError(f'cannot resume: no run-state checkpoint at {self.path}')
        contract(self, reads=('train_iter', ), name='OfflineRunStateSaver')

    def save(self, ctx: Any, finished: bool = False) -> str:
        from ding.framework.middleware.run_state import ctx_state, rng_state
        from ding.framework.middleware.run_state_file import FORMAT_VERSION, write_run_state
        _common.flush_writer()
        state = {'format': FORMAT_VERSION, 'finished': finished, 'offline': True, 'ctx': ctx_state(ctx),
                 'policy': self._learn.state_dict(), 'buffer': None, 'env': None,
                 'extra': {k: v.state_dict() for k, v in self._extra.items()}, 'rng': rng_state()}
        write_run_state(state, self.path, keep_previous=True)
        self._last_saved = ctx.train_iter
        return self.path

    def restore(self, ctx: Any) -> Dict[str, Any]:
        from ding.framework.middleware.run_state import load_ctx_state, load_rng_state
        from ding.framework.middleware.run_state_file import read_run_state
        state, used, _ = read_run_state(self.path)
        self._learn.load_state_dict(state['policy'])
        for name, obj in self._extra.items():
            if name in state['extra']:
                obj.load_state_dict(state['extra'][name])
        load_ctx_state(ctx, state['ctx'], next_step=True)
        load_rng_state(state['rng'])
        self._last_saved = ctx.train_iter
        logger.info('resumed from %s at train_iter=%d', used, ctx.train_iter)
        return state

    def __call__(self, ctx: Any):
        if self._pending_resume:
            self._pending_resume = False
            self.restore(ctx)
        elif self._last_saved is None:
            self._last_saved = ctx.train_iter
        yield
        finished = bool(_common.current_task().finish)
        if finished or ctx.train_iter - self._last_saved >= self._every:
            self.save(ctx, finished)
