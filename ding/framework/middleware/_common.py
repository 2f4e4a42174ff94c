"""Small helpers shared by the middleware: the global task, inline generator middleware,
one-time warnings and the tensorboard writer accessor.

The framework imports the middleware package lazily, so the task is looked up at call time
(`current_task()`), never at import time; tests replace it with a stand-in.
"""
import functools
import logging
import types
from typing import Any, Callable, Optional, Tuple

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


def envs_step_outside_gil(env: Any) -> bool:
    """For a collector's contract (waits_outside_gil): whether `env`'s envs step in other
    processes or threads of C; a manager that does not say is assumed to."""
    return bool(optional_attr(env, 'envs_step_outside_gil', True))


def learns_outside_gil(policy: Any) -> bool:
    """For a learner's contract (waits_outside_gil): an update on a GPU leaves this process's
    cores waiting; one on the CPU runs torch op by op under the GIL. A policy that names no
    `device` is assumed to."""
    device = optional_attr(policy, 'device')
    return device is None or getattr(device, 'type', str(device)) != 'cpu'


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
    from ding.utils import writer as writer_module
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


def role_void(roles: Any) -> Optional[Callable]:
    """`task.void()` when this node's run is distributed and it plays none of `roles` (role
    gating); None otherwise (a standalone run plays every role)."""
    task = current_task()
    if not is_distributed() or any(task.has_role(r) for r in roles):
        return None
    return task.void()


def gated(*roles: str) -> Callable:
    """Decorate a middleware factory function so that, in a distributed run, a node without any
    of `roles` gets `task.void()` instead of its middleware. Classes derive from `Gated`."""

    def deco(factory: Callable) -> Callable:
        if isinstance(factory, type):
            raise TypeError(f'gated() decorates factory functions; {factory.__name__} is a class: '
                            f'derive it from Gated and set roles = {roles!r}')
        @functools.wraps(factory)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            void = role_void(roles)
            return void if void is not None else factory(*args, **kwargs)

        return wrapper

    return deco


class Gated:
    """Base of the middleware classes a distributed node builds only in its roles.

    In a distributed run, constructing a subclass on a node that plays none of `roles` returns
    `task.void()` instead of an instance (and `__init__` does not run); with `rank0_only`, so
    does constructing it on a data-parallel rank other than 0 (one rank writes checkpoints).
    A standalone run builds every middleware. A user's subclass inherits the gate."""
    roles: Tuple[str, ...] = ()
    rank0_only: bool = False

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:  # no arguments: copy or unpickle, which must give an instance
            void = role_void(cls.roles) if cls.roles else None
            if void is None and cls.rank0_only:
                from ding.utils.dist import get_rank
                void = current_task().void() if get_rank() != 0 else None
            if void is not None:
                return void
        return super().__new__(cls)
