"""The router: how a task talks to the other nodes of a distributed run.

`Router` is the interface a distributed backend implements (Ray: `RayRouter` in
ding/framework/distributed/ray_router.py, set by the launcher in each node); the task only
uses these members, so middlewares such as ContextExchanger check `task.router.is_active` and
never see the backend. `LocalRouter` is the single-process default: inactive, no node id, no
labels, and emitting to other nodes is a no-op.
"""
from typing import Any, Callable, Set


class Router:
    """What a task needs from a distributed backend."""

    is_active: bool = False
    node_id: Any = None

    def __init__(self) -> None:
        self.labels: Set[str] = set()

    def start(self, deliver: Callable[..., None]) -> None:
        """Begin receiving: call `deliver(event, *args, **kwargs)` for each remote event."""

    def running(self) -> None:
        """The task runs its pipeline (`task.run()`): every handler the node's program registers
        with `task.use` / `task.on` before it is in place."""

    def emit(self, event: str, *args: Any, **kwargs: Any) -> None:
        """Send an event to the other nodes."""

    def stop(self) -> None:
        """Stop receiving and free the backend's resources."""


class LocalRouter(Router):
    """A run inside one process: not distributed, nothing to send."""
