"""Small helpers shared by the middleware: the global task, inline generator middleware,
one-time warnings and the tensorboard writer accessor.

The framework imports the middleware package lazily, so the task is looked up at call time
(`current_task()`), never at import time; tests replace it with a stand-in.
"""
import logging
import types
from typing import Any, Callable, Optional

from ding.utils.duck_typing import has_attr, optional_attr  # noqa: F401  (the middleware's probes)

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
    """Run `middleware` up to its yield now; return a function running its post-yield part
    (the onion's own start/finish, without `task.wrap`'s stack: a learner updates priorities
    right after each of its updates, and runs outside a task in tests)."""
    from ding.framework.onion import finish_middleware, start_middleware
    gen = start_middleware(middleware, ctx)
    return (lambda: None) if gen is None else (lambda: finish_middleware(gen))


def between_steps(fn: Callable[[Any], None], ctx: Any) -> None:
    """`task.between_steps(fn, ctx)`; fn(ctx) at once where the task has none (a stand-in)."""
    hook = getattr(current_task(), 'between_steps', None)
    if hook is None:
        fn(ctx)
    else:
        hook(fn, ctx)


def get_writer() -> Optional[Any]:
    """The tensorboard writer that `ding_init(cfg)` set up, or None."""
    try:
        from ding.utils import writer as writer_module
    except ImportError:
        return None
    # through `DistributedWriter.get_instance()`, so that code (and tests) replacing it there
    # reaches every logger
    try:
        return writer_module.DistributedWriter.get_instance()
    except RuntimeError:  # never set up
        return None


def flush_writer() -> None:
    """Push buffered tensorboard events to disk: called at each checkpoint, so after a kill and
    resume no evaluation logged before the checkpoint is lost."""
    writer = get_writer()
    if writer is not None:
        writer.flush()


def state_dict_of(policy: Any) -> Any:
    """Learner state of a full policy or of its learn mode (CkptSaver accepts either)."""
    if has_attr(policy, 'learn_mode'):
        return policy.learn_mode.state_dict()
    return policy.state_dict()


def role_void(roles: Any) -> Optional[Callable]:
    """`task.void()` when this node's run is distributed and it plays none of `roles` (role
    gating); None otherwise (a standalone run plays every role)."""
    task = current_task()
    if not is_distributed() or any(task.has_role(r) for r in roles):
        return None
    return task.void()


def gated(*roles: str) -> Callable:
    """Decorate a middleware factory (function or class) so that, in a distributed run, a node
    without any of `roles` gets `task.void()` instead of it."""

    def deco(factory: Any) -> Any:
        if isinstance(factory, type):
            base_new = factory.__new__

            def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
                void = role_void(roles) if (args or kwargs) else None  # no args: copy/unpickle
                if void is not None:
                    return void
                return base_new(cls) if base_new is object.__new__ else base_new(cls, *args, **kwargs)

            factory.__new__ = __new__
            return factory

        import functools

        @functools.wraps(factory)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            void = role_void(roles)
            return void if void is not None else factory(*args, **kwargs)

        return wrapper

    return deco


def rank0_only(factory: Any) -> Any:
    """Decorate a middleware class so that, among data-parallel learners (torch.distributed
    initialized), ranks other than 0 get `task.void()`: one rank writes checkpoints."""
    base_new = factory.__new__

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:
            from ding.utils.dist import get_rank
            if get_rank() != 0:
                return current_task().void()
        return base_new(cls) if base_new is object.__new__ else base_new(cls, *args, **kwargs)

    factory.__new__ = __new__
    return factory
