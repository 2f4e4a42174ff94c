"""`load_optimizer_state`: torch's `Optimizer.load_state_dict`, refusing a state saved by another kind of
optimizer. torch takes it silently (an Adam state into RMSprop replaces the groups' settings and
fails later at the first step with `KeyError: 'square_avg'`), so a checkpoint from before a policy
changed its optimizer (QMIX: Adam until 2026-11-28, RMSprop since) gets a clear error at load."""
from typing import Any, Dict

import torch

# Group settings that come and go with the torch version, not with the kind of optimizer.
_VERSION_FLAGS = frozenset({'foreach', 'maximize', 'capturable', 'differentiable', 'fused', 'decoupled_weight_decay'})


def load_optimizer_state(optimizer: torch.optim.Optimizer, saved: Dict[str, Any], what: str = 'optimizer') -> None:
    """Load `saved` (an `Optimizer.state_dict()`) into `optimizer`, after checking that its parameter
    groups hold the settings this kind of optimizer keeps (`what` names it in the error)."""
    groups = saved.get('param_groups') if isinstance(saved, dict) else None
    if not isinstance(groups, list):
        raise ValueError(f'checkpoint {what}: not an optimizer state (no param_groups list)')
    mine = set(optimizer.param_groups[0]) - _VERSION_FLAGS
    for group in groups:
        theirs = set(group) - _VERSION_FLAGS
        if theirs != mine:
            raise ValueError(
                f'checkpoint {what} was saved by another kind of optimizer than this {type(optimizer).__name__}: '
                f'its settings {sorted(theirs - mine)} are not this one\'s, and it lacks {sorted(mine - theirs)} '
                f'(a checkpoint from before the policy changed optimizer; load its model only)')
    optimizer.load_state_dict(saved)
