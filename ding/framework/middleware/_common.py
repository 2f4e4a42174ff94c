"""Small helpers shared by the middleware: the global task, inline generator middleware,
one-time warnings and the tensorboard writer accessor.

The framework imports the middleware package lazily, so the task is looked up at call time
(`current_task()`), never at import time; tests replace it with a stand-in.
"""
import logging
import types
from typing import Any, Callable, Optional

logger = logging.getLogger('ding.middleware')
_warned = set()


def current_task() -> Any:
    """The global `task` of `ding.framework`."""
    from ding.framework import task
    if isinstance(task, types.ModuleType):  # the submodule shadowed the lazy export
        task = task.task
    return task


def is_distributed() -> bool:
    router = getattr(current_task(), 'router', None)
    return bool(getattr(router, 'is_active', False))


def warn_once(key: str, message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        logger.warning(message)


def run_inline(middleware: Callable, ctx: Any) -> Callable[[], None]:
    """Run `middleware` up to its yield now; return a function running its post-yield part.

    The same as `task.wrap`, kept local so a learner can update priorities right after each
    of its updates instead of once at the end of the step."""
    gen = middleware(ctx)
    if not isinstance(gen, types.GeneratorType):
        return lambda: None
    try:
        next(gen)
    except StopIteration:
        return lambda: None

    def backward() -> None:
        try:
            next(gen)
        except StopIteration:
            pass

    return backward


def get_writer() -> Optional[Any]:
    """The tensorboard writer that `ding_init(cfg)` set up, or None."""
    try:
        from ding.utils import writer as writer_module
    except ImportError:
        return None
    has_writer = getattr(writer_module, 'has_writer', None)
    if has_writer is not None and not has_writer():
        return None
    try:
        return writer_module.get_writer()
    except RuntimeError:  # never set up
        return None


def state_dict_of(policy: Any) -> Any:
    """Learner state of a full policy or of its learn mode (CkptSaver accepts either)."""
    if hasattr(policy, 'learn_mode'):
        return policy.learn_mode.state_dict()
    return policy.state_dict()
