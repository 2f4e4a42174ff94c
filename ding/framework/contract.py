"""Middleware contracts: which ctx fields a middleware reads and writes, which config keys
it needs, whether it may overlap with later stages in async mode, and whether it waits on
work that does not hold this interpreter's GIL (only then can overlap pay).

A factory declares its contract on the callable it returns:

    def trainer(cfg, policy, log_freq=100):
        require_config(cfg, 'trainer', 'policy.learn.batch_size')
        def _trainer(ctx): ...
        return contract(_trainer, reads=('train_data',), writes=('train_output', 'train_iter'))

The task uses the contract to print the pipeline table, to warn about a field read before
anything writes it, and in async mode to decide which stages may overlap and to refuse two
stages that both write one kept field (env_step, train_iter, ...): it has one writer stage.
"""
from typing import Any, Callable, Optional, Sequence

from ding.utils.keys import lookup


def contract(
        fn: Callable,
        reads: Sequence[str] = (),
        writes: Sequence[str] = (),
        name: str = None,
        fresh_weights: bool = False,
        waits_outside_gil: bool = False,
) -> Callable:
    """Attach a contract to `fn` and return it.

    fresh_weights=True says the stage must see weights updated by every earlier step
    (an on-policy learner): in async mode the task does not let it run ahead.

    waits_outside_gil=True says the stage spends real time waiting on work that does not hold
    this interpreter's GIL: envs stepping in other processes, a GPU, the network. Two stages
    that both run Python and small torch ops take turns on the GIL, so async mode overlaps
    steps only when some stage waits outside it. A middleware without a contract is assumed to.
    """
    fn.reads = tuple(reads)
    fn.writes = tuple(writes)
    fn.fresh_weights = fresh_weights
    fn.waits_outside_gil = waits_outside_gil
    if name is not None:
        fn.middleware_name = name
    return fn


def has_contract(fn: Callable) -> bool:
    return hasattr(fn, 'reads') and hasattr(fn, 'writes')


def inherit_contract(wrapper: Callable, fn: Callable, name: Optional[str] = None) -> Callable:
    """Give `wrapper` (a lock, a timer, ...) the contract and name of the middleware it wraps."""
    if has_contract(fn):
        wrapper.reads, wrapper.writes = fn.reads, fn.writes
    wrapper.fresh_weights = getattr(fn, 'fresh_weights', False)
    wrapper.waits_outside_gil = waits_outside_gil(fn)
    wrapper.middleware_name = name or middleware_name(fn)
    return wrapper


def waits_outside_gil(fn: Callable) -> bool:
    """The contract's `waits_outside_gil`; True for a middleware that states none (it may)."""
    return bool(getattr(fn, 'waits_outside_gil', True))


def middleware_name(fn: Callable) -> str:
    name = getattr(fn, 'middleware_name', None) or getattr(fn, '__name__', None) or type(fn).__name__
    return name.lstrip('_')


def require_config(cfg: Any, owner: str, *keys: str) -> None:
    """Fail at construction, naming the middleware and the key, if `cfg` lacks any of `keys`."""
    for key in keys:
        try:
            lookup(cfg, key)
        except KeyError as err:
            raise KeyError(f'{owner} needs config key cfg.{key}: {err.args[0]}') from None
