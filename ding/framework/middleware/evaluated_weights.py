"""What an evaluation round plays: start states of its own, and weights that can be saved.

- `round_seed(seed, round_)`: each evaluation round gets new start states, derived from the
  run's seed and the round (the evaluator uses `train_iter`, which resume restores, so an
  exactly resumed run replays the same rounds).
- `held_eval_weights(policy)`: keeps the eval acting copy at one version for the round (a
  learner in another thread cannot change it mid-round) and gives a checkpoint of those
  exact weights, which `CkptSaver` writes as `eval.pth.tar`; the evaluator takes it only for
  a new best, the only time it is written.
"""
import contextlib
from typing import Any, Callable, Dict, Iterator, Optional

import numpy as np

from ding.utils.duck_typing import has_attr, optional_attr

# key of ctx.eval_output holding the checkpoint of the weights just evaluated (new bests only)
EVALUATED_STATE = 'evaluated_state'


def round_seed(seed: int, round_: int) -> int:
    """`seed` itself for round 0 (the first evaluation plays the seed's own start states), then
    a well-mixed 32-bit seed per (seed, round); env i of the round gets this + i."""
    if round_ == 0:
        return int(seed)
    return int(np.random.SeedSequence([int(seed) & 0xFFFFFFFF, int(round_) & 0xFFFFFFFF]).generate_state(1)[0])


@contextlib.contextmanager
def held_eval_weights(policy: Any) -> Iterator[Callable[[], Optional[Dict[str, Any]]]]:
    """Inside the block the eval acting copy of `policy` (its eval mode or the policy) stays
    put; yields a function returning a checkpoint of those weights (`Policy.acting_state`:
    the learner state at them, or the model weights alone once the learner has moved on),
    or None for a policy without acting copies (a user's own object)."""
    owner = optional_attr(policy, 'policy', policy)
    if not has_attr(owner, 'hold_acting_weights'):
        yield lambda: None
        return
    with owner.hold_acting_weights('eval'):
        yield lambda: owner.acting_state('eval')
