"""Epsilon-greedy exploration: the schedule of epsilon over env steps, and the action choice."""
import math
from typing import Callable, Optional

import torch


def exp_epsilon(start: float, end: float, decay: float) -> Callable[[int], float]:
    """eps(step) = end + (start - end) * exp(-step / decay): fast early decay, never below `end`."""

    def eps(step: int) -> float:
        return end + (start - end) * math.exp(-step / decay)

    return eps


def linear_epsilon(start: float, end: float, decay: float) -> Callable[[int], float]:
    """eps(step) = start - (start - end) * step / decay until it reaches `end`, then `end`."""

    def eps(step: int) -> float:
        value = start - (start - end) * step / decay
        return max(value, end) if start >= end else min(value, end)

    return eps


_SCHEDULES = {'exp': exp_epsilon, 'linear': linear_epsilon}


def get_epsilon_greedy_fn(start: float, end: float, decay: float, type_: str = 'exp',
                          **kwargs: str) -> Callable[[int], float]:
    """The schedule named by `type_` ('exp' or 'linear'; also accepted as keyword `type`)."""
    kind = kwargs.pop('type', type_)
    if kwargs:
        raise TypeError(f'get_epsilon_greedy_fn got unexpected arguments {sorted(kwargs)}')
    if kind not in _SCHEDULES:
        raise ValueError(f'unknown epsilon schedule type {kind!r}; choose one of {sorted(_SCHEDULES)}')
    if decay <= 0:
        raise ValueError(f'epsilon decay must be > 0, got {decay}')
    return _SCHEDULES[kind](start, end, decay)


def epsilon_greedy(logit: torch.Tensor, eps: float, action_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Per row: with probability eps a uniformly random action (any of the A, the greedy one
    included; with `action_mask` [B, A], any allowed one), otherwise argmax. logit [B, A] ->
    action int64 [B]. eps < 0 means greedy. Uses torch's global generator, so `set_pkg_seed`
    makes it repeatable."""
    greedy = logit.argmax(dim=-1)
    if eps <= 0:
        return greedy
    explore = torch.rand(logit.shape[0], device=logit.device) < eps
    return torch.where(explore, uniform_action(logit, action_mask), greedy)


def uniform_action(logit: torch.Tensor, action_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Per row of logit [B, A], an action drawn uniformly from the A (or from those `action_mask`
    [B, A] allows); int64 [B], from torch's global generator."""
    if action_mask is None:
        return torch.randint(logit.shape[-1], (logit.shape[0], ), device=logit.device)
    allowed = (torch.as_tensor(action_mask, device=logit.device) != 0).float()
    return torch.multinomial(allowed, 1).squeeze(-1)
