"""Epsilon-greedy exploration: the schedule is read at `ctx.env_step` and handed to the
collector through `ctx.collect_kwargs['eps']`."""
import math
from typing import Any, Callable

from ding.framework.contract import contract, require_config


def epsilon_schedule(eps_type: str, start: float, end: float, decay: int) -> Callable[[int], float]:
    """exp: end + (start - end) * exp(-step / decay); linear: start -> end over `decay` steps."""
    if eps_type == 'exp':
        return lambda step: end + (start - end) * math.exp(-step / decay)
    if eps_type == 'linear':
        return lambda step: max(end, start - (start - end) * step / decay)
    raise ValueError(f"cfg.policy.other.eps.type must be 'exp' or 'linear', got {eps_type!r}")


def eps_greedy_handler(cfg: Any) -> Any:
    """Sets `collect_kwargs['eps']` for this step; removes it after the step."""
    keys = [f'policy.other.eps.{k}' for k in ('type', 'start', 'end', 'decay')]
    require_config(cfg, 'eps_greedy_handler', *keys)
    eps = cfg.policy.other.eps
    schedule = epsilon_schedule(eps.type, eps.start, eps.end, eps.decay)

    def _eps_greedy(ctx: Any):
        ctx.collect_kwargs['eps'] = schedule(ctx.env_step)
        yield
        ctx.collect_kwargs.pop('eps', None)

    return contract(_eps_greedy, reads=('env_step', ), writes=('collect_kwargs', ))


def eps_greedy_masker() -> Any:
    """Sets `collect_kwargs['eps'] = -1`: act greedily (e.g. in a deployment pipeline)."""

    def _masker(ctx: Any) -> None:
        ctx.collect_kwargs['eps'] = -1

    return contract(_masker, writes=('collect_kwargs', ))
