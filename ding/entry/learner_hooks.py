"""The `policy.learn.learner.hook` config keys in ding's training pipeline.

- `load_ckpt_before_run`: a policy checkpoint (ours, or a `{'model': ...}` dict) whose
  weights the policy takes before the first step; not on resume, whose run state wins.
- `save_ckpt_after_iter`: train iterations between checkpoints (CkptSaver's train_freq).
- `log_show_after_iter`: train iterations between training log lines (online_logger, trainers).
- `save_ckpt_after_run`: ding always writes `ckpt/final.pth.tar` at the end; False is noted once.
A hook left at its default (None or '') keeps the pipeline's own value.
"""
import logging
from typing import Any, Mapping, Optional

logger = logging.getLogger('ding.entry')


def hooks(cfg: Any) -> Mapping:
    return ((cfg.policy.get('learn') or {}).get('learner') or {}).get('hook') or {}


def ckpt_train_freq(cfg: Any, default: int) -> int:
    value = hooks(cfg).get('save_ckpt_after_iter')
    return int(value) if value else default


def log_train_freq(cfg: Any, default: int) -> int:
    value = hooks(cfg).get('log_show_after_iter')
    return int(value) if value else default


def load_before_run(cfg: Any, policy: Any, resume: bool) -> Optional[str]:
    """Load the `load_ckpt_before_run` checkpoint into `policy`; returns its path, or None."""
    path = hooks(cfg).get('load_ckpt_before_run')
    if hooks(cfg).get('save_ckpt_after_run') is False:
        logger.warning('learner.hook.save_ckpt_after_run=False: ding still writes ckpt/final.pth.tar at the end')
    if not path or resume:
        return None
    from ding.utils.checkpoint_io import CheckpointError, load_checkpoint
    state = load_checkpoint(path)
    if not isinstance(state, Mapping) or 'model' not in state:
        raise CheckpointError(f'learner.hook.load_ckpt_before_run={path!r} is not a policy checkpoint '
                              f'(no model weights in it)')
    learn = policy.learn_mode if hasattr(policy, 'learn_mode') else policy
    learn.load_state_dict(state)
    logger.info('policy weights loaded from %s (learner.hook.load_ckpt_before_run)', path)
    return path
