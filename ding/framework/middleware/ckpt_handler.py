"""`CkptSaver`: learner checkpoints under `<save_dir>/ckpt/`, written atomically (a crash
leaves the previous file, never a truncated one). `eval.pth.tar` holds exactly the weights of
the best evaluation, taken by the evaluator before the step's updates (with the learner state
at them; in async mode, if the learner moved on during the round, the model alone). The
other files hold the learner state when written. The tensorboard writer is flushed at each save."""
import math
import os
import re
from typing import Any, Dict, Optional

from ding.framework.contract import contract
from ding.framework.middleware import _common
from ding.framework.middleware.evaluated_weights import EVALUATED_STATE
from ding.utils.fileio import atomic_torch_save

_ITERATION_FILE = re.compile(r'iteration_(\d+)\.pth\.tar')


def save_file(path: str, data: Any, fs_type: str = None, use_lock: bool = False) -> None:
    """Write one checkpoint file, atomically. `fs_type` and `use_lock` are accepted for callers
    that pass them and not needed here; CkptSaver writes through it, so a test can
    patch `ckpt_handler.save_file`."""
    atomic_torch_save(data, path)


class CkptSaver(_common.Gated):
    """`iteration_{train_iter}.pth.tar` at train_iter 0 (once) and every
    `train_freq` train iterations after, `eval.pth.tar` on a new best `eval_value`,
    `final.pth.tar` when the task finishes (checked after the step's other middlewares ran, so a
    later `termination_checker` is seen too).

    `keep_last`: keep only the newest `keep_last` `iteration_*.pth.tar` files (None: all);
    `eval.pth.tar` and `final.pth.tar` are never removed. A Nature-CNN checkpoint is 35 MB,
    so an Atari run that saves every 1,000 updates fills gigabytes.

    `normalizer`: an env manager with running observation / reward statistics
    (`NormalizedEnvManager`, best the evaluator's: it reports the statistics its evaluation
    used); each file then also holds them under `env_normalizer`, so a deployed or exported
    model normalises as in training."""
    roles = ('learner', 'evaluator')
    rank0_only = True

    def __init__(self, policy: Any, save_dir: str, train_freq: int = None, save_finish: bool = True,
                 normalizer: Any = None, keep_last: Optional[int] = None) -> None:
        if keep_last is not None and (isinstance(keep_last, bool) or not isinstance(keep_last, int) or keep_last < 1):
            raise ValueError(f'CkptSaver keep_last must be a positive int or None, got {keep_last!r}')
        self._keep_last = keep_last
        self._policy = policy
        self._normalizer = normalizer
        self._dir = os.path.join(save_dir, 'ckpt')
        self._train_freq = train_freq
        self._save_finish = save_finish
        self._last_save_iter = 0
        self._saved_iter_0 = False
        self._best_eval = -math.inf
        self._final_saved = False
        contract(self, reads=('train_iter', 'eval_value'))

    def state_dict(self) -> Dict[str, Any]:
        """What a resumed run needs to go on judging bests (RunStateSaver's `extra`)."""
        return {'best_eval': self._best_eval, 'last_save_iter': self._last_save_iter}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self._best_eval, self._last_save_iter = state['best_eval'], state['last_save_iter']

    def save(self, name: str, state: Any = None) -> str:
        """Write `state` (default: the learner's state now) as `ckpt/<name>`."""
        path = os.path.join(self._dir, name)
        _common.flush_writer()  # the logs a checkpoint's run has seen are on disk with it
        if state is None:  # CkptSaver accepts a full policy or its learn mode
            learner = self._policy.learn_mode if _common.has_attr(self._policy, 'learn_mode') else self._policy
            state = learner.state_dict()
        if self._normalizer is not None:
            state = dict(state, env_normalizer=self._normalizer.normalizer_state())
        save_file(path, state)
        return path

    def _remove_old_iterations(self) -> None:
        """All but the newest `keep_last` iteration files, by train iteration (also those an
        earlier sitting of a resumed run wrote)."""
        found = []
        for name in os.listdir(self._dir):
            match = _ITERATION_FILE.fullmatch(name)
            if match:
                found.append((int(match.group(1)), name))
        for _, name in sorted(found)[:-self._keep_last]:
            os.remove(os.path.join(self._dir, name))

    def __call__(self, ctx: Any):
        # the untrained policy is saved too (iteration_0), e.g. T-REX's worst demonstrator
        first = ctx.train_iter == 0 and not self._saved_iter_0
        if self._train_freq and (first or ctx.train_iter - self._last_save_iter >= self._train_freq):
            self.save(f'iteration_{ctx.train_iter}.pth.tar')
            self._last_save_iter = ctx.train_iter
            if self._keep_last is not None:
                self._remove_old_iterations()
            self._saved_iter_0 = self._saved_iter_0 or first
        eval_value = getattr(ctx, 'eval_value', -math.inf)
        if eval_value is not None and eval_value > self._best_eval:
            # The weights the evaluator played (the learner may have updated since), when it kept them.
            evaluated = (getattr(ctx, 'eval_output', None) or {}).get(EVALUATED_STATE)
            self.save('eval.pth.tar', evaluated)
            self._best_eval = eval_value
        yield
        if self._save_finish and not self._final_saved and _common.current_task().finish:
            self.save('final.pth.tar')
            self._final_saved = True
