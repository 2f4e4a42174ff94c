"""`NodeActor`: one worker of a distributed run, a Ray actor that runs the user's `main()`.

Three lanes (Ray concurrency groups, one thread each): the default lane runs `main()`; the `io`
lane receives events in the order each sender sent them (`deliver`), peer updates and
`finish`; the `diag` lane answers `where` (main()'s stack) even when the other two are stuck.
Before `main()` starts, the global `task.router` becomes this node's `RayRouter`, so
`task.router.is_active`, `node_id` and `labels` are what the launcher decided.
"""
import importlib
import logging
import os
import sys
import threading
import traceback
from typing import Any, Dict, Iterable, List, NamedTuple, Optional

logger = logging.getLogger('ding.distributed')
CONCURRENCY_GROUPS = {'io': 1, 'diag': 1}


def resolve_main(main: Any) -> Any:
    """A callable, or 'package.module.function' imported here (in the node's process)."""
    if callable(main):
        return main
    module, _, attr = str(main).rpartition('.')
    if not module:
        raise ValueError(f'--main must be MODULE.FUNCTION, got {main!r}')
    return getattr(importlib.import_module(module), attr)


class NodeReturn(NamedTuple):
    """What `NodeActor.run` gives the launcher: main()'s value, and why this node ended the run
    (`task.end`), which the launcher logs on the driver."""
    value: Any
    finish_reason: Optional[str]


class NodeActor:

    def __init__(self, node_id: int, launch_id: int, labels: Iterable[str], sys_path: List[str], cwd: str,
                 torch_threads: int = 1, env: Optional[Dict[str, str]] = None, pin_index: Optional[int] = None) -> None:
        os.environ.update(env or {})
        self.pinned_core = None
        if pin_index is not None:  # before torch starts its threads, so they inherit the pin
            from ding.framework.distributed.placement import pin_to_core
            self.pinned_core = pin_to_core(pin_index)
        if torch_threads:
            os.environ.setdefault('OMP_NUM_THREADS', str(torch_threads))
        if os.path.isdir(cwd):
            os.chdir(cwd)
        for path in reversed(sys_path):
            if path not in sys.path:
                sys.path.insert(0, path)
        if torch_threads:
            import torch
            torch.set_num_threads(int(torch_threads))
        from ding.framework.distributed.ray_router import RayRouter
        self.node_id, self.launch_id = node_id, launch_id
        self.router = RayRouter(node_id, labels)
        self._main_thread: Optional[int] = None

    def info(self) -> Dict[str, Any]:
        import ray
        import torch
        affinity = sorted(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else None
        return {'node_id': self.node_id, 'pid': os.getpid(), 'ray_node_id': ray.get_runtime_context().get_node_id(),
                'torch_threads': torch.get_num_threads(), 'cpu_affinity': affinity}

    def set_peers(self, peers: Dict[int, Any]) -> None:
        self.router.set_peers(peers)

    def deliver(self, sender: int, event: str, args: tuple, kwargs: dict) -> None:
        self.router.receive(sender, event, args, kwargs)

    def finish(self) -> None:
        """Asked by the launcher (a node failed, Ctrl-C): end this node's run after its step."""
        from ding.framework import task
        task._remote_finish()

    def where(self, limit: int = 12) -> str:
        """The innermost frames of main()'s thread now (the launcher logs them when a run times out)."""
        frame = sys._current_frames().get(self._main_thread) if self._main_thread is not None else None
        if frame is None:
            return 'not in main()'
        return ''.join(traceback.format_stack(frame, limit=limit))

    def run(self, main: Any, args: tuple = (), kwargs: Optional[dict] = None, registry: Any = None) -> 'NodeReturn':
        from ding.framework import task
        self._main_thread = threading.get_ident()
        if registry is not None:
            self._follow_registry(registry)
        fn = resolve_main(main)
        task.router = self.router
        try:
            value = fn(*args, **(kwargs or {}))
            return NodeReturn(value, task.finish_reason)
        finally:
            if task.running:
                task.stop()
            self.router.stop()

    # ---- peers from the registry (nodes of later launches join; restarted nodes return) ----
    def _follow_registry(self, registry: Any) -> None:
        import ray
        self.router.registry = registry
        self.router.set_peers(ray.get(registry.peers_of.remote(self.node_id)))

        def _poll() -> None:
            import time
            from ding.framework import task
            reported, tick = None, 0
            while not self.router._stopped:
                time.sleep(0.2)
                tick += 1
                try:
                    roles = sorted(r.value for r in task.roles)
                    if roles != reported:  # the launcher restarts a dead node unless it is a learner
                        ray.get(registry.set_roles.remote(self.node_id, roles), timeout=5)
                        reported = roles
                    if tick % 5 == 0:
                        self.router.set_peers(ray.get(registry.peers_of.remote(self.node_id), timeout=5))
                except Exception:  # the registry's owner ended: keep the peers we know
                    return

        threading.Thread(target=_poll, name='ding-peers', daemon=True).start()
