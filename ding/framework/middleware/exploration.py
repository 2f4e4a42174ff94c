"""Epsilon-greedy exploration: the schedule is read at `ctx.env_step` and handed to the
collector through `ctx.collect_kwargs['eps']`."""
from typing import Any

from ding.framework.contract import contract, require_config
from ding.rl_utils.exploration import get_epsilon_greedy_fn
from ding.framework.middleware import _common


@_common.gated('collector')
def eps_greedy_handler(cfg: Any) -> Any:
    """Sets `collect_kwargs['eps']` for this step; removes it after the step."""
    keys = [f'policy.other.eps.{k}' for k in ('type', 'start', 'end', 'decay')]
    require_config(cfg, 'eps_greedy_handler', *keys)
    eps = cfg.policy.other.eps
    schedule = get_epsilon_greedy_fn(eps.start, eps.end, eps.decay, eps.type)

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
