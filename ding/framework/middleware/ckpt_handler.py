"""`CkptSaver`: learner checkpoints under `<save_dir>/ckpt/`, written atomically (a crash
leaves the previous file, never a truncated one)."""
import math
import os
from typing import Any

from ding.framework.contract import contract
from ding.framework.middleware import _common
from ding.utils.fileio import atomic_torch_save


class CkptSaver:
    """`iteration_{train_iter}.pth.tar` every `train_freq` train iterations, `eval.pth.tar` on a
    new best `eval_value`, `final.pth.tar` when the task finishes (checked after the step's
    other middlewares ran, so a later `termination_checker` is seen too)."""

    def __init__(self, policy: Any, save_dir: str, train_freq: int = None, save_finish: bool = True) -> None:
        self._policy = policy
        self._dir = os.path.join(save_dir, 'ckpt')
        self._train_freq = train_freq
        self._save_finish = save_finish
        self._last_save_iter = 0
        self._best_eval = -math.inf
        self._final_saved = False
        contract(self, reads=('train_iter', 'eval_value'))

    def save(self, name: str) -> str:
        path = os.path.join(self._dir, name)
        atomic_torch_save(_common.state_dict_of(self._policy), path)
        return path

    def __call__(self, ctx: Any):
        if self._train_freq and ctx.train_iter - self._last_save_iter >= self._train_freq:
            self.save(f'iteration_{ctx.train_iter}.pth.tar')
            self._last_save_iter = ctx.train_iter
        eval_value = getattr(ctx, 'eval_value', -math.inf)
        if eval_value is not None and eval_value > self._best_eval:
            self.save('eval.pth.tar')
            self._best_eval = eval_value
        yield
        if self._save_finish and not self._final_saved and _common.current_task().finish:
            self.save('final.pth.tar')
            self._final_saved = True
