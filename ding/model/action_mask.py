"""Invalid-action masking for single-agent discrete models.

An env that forbids some actions returns a dict observation `{'observation': obs,
'action_mask': mask}` with `mask[a]` 1 where action a is allowed and 0 where it is not (any
numeric or bool dtype). A model method decorated with `masks_actions` runs on `observation` and
sets the `logit` of each forbidden action to `MASKED_LOGIT`, and returns the mask as
`action_mask`. So greedy and softmax acting, sampled log-probabilities and entropies, and the
bootstrap action of a Q target (argmax of a masked `logit`) all stay on allowed actions;
`epsilon_greedy` and the random warm-up policy read the mask to explore among them. A dict obs
with more keys than these two keeps its other keys (for a user encoder); a plain array obs goes
through untouched.
"""
import functools
from typing import Any, Callable, Optional, Tuple

import torch

MASK_KEY = 'action_mask'
OBS_KEY = 'observation'
# finite, unlike -inf: a softmax over it is exactly 0 without NaNs, and 0 * MASKED_LOGIT stays 0
MASKED_LOGIT = -1e8


def split_action_mask(obs: Any) -> Tuple[Any, Optional[Any]]:
    """(what the network reads, the mask or None) of an observation batch."""
    if isinstance(obs, torch.Tensor) or not hasattr(obs, 'keys') or MASK_KEY not in obs:
        return obs, None
    if set(obs.keys()) == {OBS_KEY, MASK_KEY}:
        return obs[OBS_KEY], obs[MASK_KEY]
    return {k: obs[k] for k in obs.keys() if k != MASK_KEY}, obs[MASK_KEY]


def mask_logit(logit: torch.Tensor, mask: Any) -> torch.Tensor:
    mask = torch.as_tensor(mask, device=logit.device)
    if mask.shape != logit.shape:
        raise ValueError(f'action_mask has shape {tuple(mask.shape)}, the logits {tuple(logit.shape)}: one entry per '
                         f'action is needed')
    return logit.masked_fill(mask == 0, MASKED_LOGIT)


def masks_actions(method: Callable) -> Callable:
    """Decorate `method(self, obs, ...) -> dict with 'logit'` to honour an obs's action mask."""

    @functools.wraps(method)
    def masked(self: Any, obs: Any, *args: Any, **kwargs: Any) -> Any:
        obs, mask = split_action_mask(obs)
        out = method(self, obs, *args, **kwargs)
        if mask is None or 'logit' not in out:
            return out
        return {**out, 'logit': mask_logit(out['logit'], mask), MASK_KEY: mask}

    return masked


def strips_action_mask(method: Callable) -> Callable:
    """Decorate `method(self, obs, ...)` that does not act (a critic) to read only the observation."""

    @functools.wraps(method)
    def stripped(self: Any, obs: Any, *args: Any, **kwargs: Any) -> Any:
        return method(self, split_action_mask(obs)[0], *args, **kwargs)

    return stripped
