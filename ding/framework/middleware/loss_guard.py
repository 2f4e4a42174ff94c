"""Loss guard: a NaN or infinite loss or gradient norm stops training, naming the term and
the train_iter.

Why here: every learner middleware (`trainer`, `multistep_trainer`, `OffPolicyLearner`,
`HERLearner`) hands each update's output to `LossGuard.check`, so every policy is covered
without touching its file. The terms checked are the output's scalars whose name contains
'loss' or 'grad_norm' (what the policies report; a policy that does not report its gradient
norm has it checked through its loss only).

`policy.learn.nonfinite` (declared in the base `Policy.config`):
- 'raise' (default): `NonFiniteError` naming the term, its value and the train_iter;
- 'warn': a WARNING (the first time, then each time the count doubles) and training goes on.
  The optimizer step has been taken by then, so the weights may already be NaN: 'warn' is
  for diagnosing, not for recovering.
"""
import logging
import math
import numbers
from collections.abc import Mapping
from typing import Any, Iterable, Optional

from ding.utils.duck_typing import optional_attr
from ding.utils.nonfinite import NonFiniteError

logger = logging.getLogger('ding.learner')

MODES = ('raise', 'warn')


def _scalar(value: Any) -> Optional[float]:
    """A Python float of a number, a 0-d / one-element array or tensor; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Real):
        return float(value)
    numel = value.numel() if hasattr(value, 'numel') else getattr(value, 'size', None)  # torch / numpy
    if numel == 1 and hasattr(value, 'item'):
        return float(value.item())
    return None


def _watched(name: Any) -> bool:
    return isinstance(name, str) and ('loss' in name or 'grad_norm' in name)


class LossGuard:
    """`LossGuard(policy).check(output, train_iter)` after each update."""

    def __init__(self, policy: Any) -> None:
        # a duck-typed policy (a test's Mock, say) is asked only for what it defines
        cfg = optional_attr(policy, 'cfg') or optional_attr(policy, '_cfg')
        learn = cfg.get('learn', None) if isinstance(cfg, Mapping) else None
        mode = learn.get('nonfinite', 'raise') if isinstance(learn, Mapping) else 'raise'
        if mode not in MODES:
            raise ValueError(f'policy.learn.nonfinite must be one of {list(MODES)}, got {mode!r}')
        self.mode = mode
        self.name = type(getattr(policy, 'policy', policy)).__name__
        self.count = 0  # updates with a non-finite term so far ('warn')

    def check(self, output: Any, train_iter: int) -> None:
        """`output`: one update's output dict; `train_iter`: the iteration that update made."""
        if not isinstance(output, dict):
            return
        for key, value in output.items():
            if not _watched(key):
                continue
            x = _scalar(value)
            if x is not None and not math.isfinite(x):
                self._found(key, x, train_iter)
                return

    def check_all(self, outputs: Iterable[Any], first_iter: int) -> None:
        for k, output in enumerate(outputs):
            self.check(output, first_iter + k)

    def _found(self, key: str, value: float, train_iter: int) -> None:
        text = f'{self.name}: non-finite {key}={value} at train_iter {train_iter}'
        if self.mode == 'raise':
            raise NonFiniteError(f"{text}; look for NaN / inf in the data or a too-high learning rate, or set "
                                 f"policy.learn.nonfinite='warn' to log it and go on")
        self.count += 1
        if self.count & (self.count - 1) == 0:  # 1, 2, 4, 8, ...: bounded logging while it stays NaN
            logger.warning("%s (%d update(s) so far; policy.learn.nonfinite='warn', training goes on)", text,
                           self.count)
