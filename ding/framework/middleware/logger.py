"""Tensorboard logging (the writer `ding_init(cfg)` set up); the wandb loggers are in wandb_logger.py.
Without a writer the loggers do nothing, after one warning."""
import math
from collections.abc import Mapping
from typing import Any, Dict, Optional

import numpy as np

from ding.framework.contract import contract
from ding.framework.middleware import _common


def mean_scalars(train_output: Any) -> Dict[str, float]:
    """Numeric entries of one output dict, or their means over a list (or deque) of output dicts."""
    outputs = [train_output] if isinstance(train_output, Mapping) else list(train_output)
    values: Dict[str, list] = {}
    for out in outputs:
        for k, v in (out or {}).items():
            if isinstance(v, (int, float, np.number)) and not isinstance(v, bool):
                values.setdefault(k, []).append(float(v))
            elif hasattr(v, 'numel') and v.numel() == 1:
                values.setdefault(k, []).append(float(v.item()))
    return {k: sum(v) / len(v) for k, v in values.items()}


def _writer_or_warn(name: str) -> Optional[Any]:
    writer = _common.get_writer()
    if writer is None:
        _common.warn_once(f'{name}.no_writer', f'{name}: no tensorboard writer; call ding_init(cfg) first. Not logging.')
    return writer


@_common.gated('learner')
def online_logger(record_train_iter: bool = False, train_show_freq: int = 100) -> Any:
    """Eval return at each evaluation, training scalars every `train_show_freq` env steps,
    both against env_step (and also against train_iter with `record_train_iter`)."""
    last_show = [-math.inf]

    def _log(ctx: Any) -> None:
        writer = _writer_or_warn('online_logger')
        if writer is None:
            return
        steps = [('env_step', ctx.env_step)] + ([('train_iter', ctx.train_iter)] if record_train_iter else [])
        if math.isfinite(ctx.eval_value):
            for axis, step in steps:
                writer.add_scalar(f'basic/eval_episode_return_mean-{axis}', ctx.eval_value, step)
        if ctx.train_output and ctx.env_step - last_show[0] >= train_show_freq:
            last_show[0] = ctx.env_step
            for k, v in mean_scalars(ctx.train_output).items():
                for axis, step in steps:
                    writer.add_scalar(f'basic/train_{k}-{axis}', v, step)

    return contract(_log, reads=('env_step', 'train_iter', 'eval_value', 'train_output'))


@_common.gated('learner')
def offline_logger(record_train_iter: bool = False, train_show_freq: int = 100) -> Any:
    """Eval return and training scalars against train_iter (offline runs have no env_step)."""
    last_show = [-math.inf]

    def _log(ctx: Any) -> None:
        writer = _writer_or_warn('offline_logger')
        if writer is None:
            return
        if math.isfinite(ctx.eval_value):
            writer.add_scalar('basic/eval_episode_return_mean-train_iter', ctx.eval_value, ctx.train_iter)
        if ctx.train_output:
            _refuse_grouped_scalars(ctx.train_output)
        if ctx.train_output and ctx.train_iter - last_show[0] >= train_show_freq:
            last_show[0] = ctx.train_iter
            for k, v in mean_scalars(ctx.train_output).items():
                writer.add_scalar(f'basic/train_{k}-train_iter', v, ctx.train_iter)

    return contract(_log, reads=('train_iter', 'eval_value', 'train_output'))


def _refuse_grouped_scalars(train_output: Any) -> None:
    """Refuses `[scalars]` outputs (a group of scalars under one key) with NotImplementedError,
    rather than logging them under a meaningless tag."""
    for out in ([train_output] if isinstance(train_output, Mapping) else list(train_output)):
        keys = [k for k in (out or {}) if '[scalars]' in str(k)]
        if keys:
            raise NotImplementedError(f'offline_logger: train_output key {keys[0]!r} holds grouped scalars '
                                      "('[scalars]'), which the offline logger does not log")
