"""`RayRouter`: `task.router` inside a node actor of a distributed run.

Events go to peer node actors as Ray actor calls (`NodeActor.deliver`, one ordered lane per
node), so Ray carries every message; large payloads travel as object-store references that the
sender put once. A delivered event whose name has no handler yet (the peer's `main()` has not
reached `task.on`/`task.use` so far) is held, in order, until one is registered, instead of
being dropped. Once the node's pipeline has run (`task.run()`) for `grace_s` seconds, events
nobody listens to on this node (e.g. a collector's data reaching another collector in a mesh)
are dropped and counted, logged once per event name. The clock starts at `task.run()`, not at
`task.start()`: a node slow to build its envs and policy (a loaded machine, a slow import) would
otherwise drop the first data its learner's handlers were about to take, and the run would wait
forever. Failed deliveries (a dead peer) are logged, never silent.
"""
import collections
import logging
import threading
import time
from typing import Any, Callable, Dict, Iterable, List, Optional

from ding.framework.router import Router

logger = logging.getLogger('ding.distributed')
FINISH = 'finish'


class RayRouter(Router):
    is_active = True

    def __init__(self, node_id: int, labels: Iterable[str] = (), grace_s: float = 30.0) -> None:
        super().__init__()
        self.node_id = node_id
        self.labels = set(labels)
        self._peers: Dict[int, Any] = {}
        self._deliver: Optional[Callable[..., None]] = None
        self._has_handler: Callable[[str], bool] = lambda event: False
        self._held: Dict[str, collections.deque] = collections.OrderedDict()
        self._lock = threading.RLock()
        self._inflight: List[Any] = []
        self._grace_s = grace_s
        self._started_at: Optional[float] = None
        self.ignored: Dict[str, int] = {}
        self.undelivered: Dict[int, int] = {}  # peer -> events that failed to reach it
        self._last_report: Dict[int, float] = {}
        self._stopped = False
        self._finish_sent = False
        self._retry = threading.Thread(target=self._retry_loop, name='ding-router-held', daemon=True)
        self._retry.start()

    # ---- peers (set by the node actor) ----------------------------------------------------
    def set_peers(self, peers: Dict[int, Any]) -> None:
        with self._lock:
            self._peers = {k: v for k, v in peers.items() if k != self.node_id}

    @property
    def peer_ids(self) -> List[int]:
        return sorted(self._peers)

    # ---- Router interface -----------------------------------------------------------------
    def start(self, deliver: Callable[..., None]) -> None:
        bus = getattr(deliver, '__self__', None)
        with self._lock:
            self._deliver = deliver
            self._has_handler = getattr(bus, 'has_handlers', lambda event: True)
            self._stopped = False
            self._finish_sent = False
            self._started_at = None  # the grace starts when the pipeline runs (running())
        self._flush()

    def running(self) -> None:
        with self._lock:
            self._started_at = time.monotonic()

    def emit(self, event: str, *args: Any, **kwargs: Any) -> None:
        with self._lock:
            peers = list(self._peers.items())
        refs = [(handle.deliver.options(concurrency_group='io').remote(self.node_id, event, args, kwargs), peer)
                for peer, handle in peers]
        self._track(refs, event)

    def stop(self) -> None:
        """End of this node's run: tell the peers to finish (once), stop delivering."""
        self.broadcast_finish()
        with self._lock:
            self._stopped = True
            self._deliver = None

    def broadcast_finish(self) -> None:
        with self._lock:
            if self._finish_sent:
                return
            self._finish_sent = True
        self.emit(FINISH, True)

    def close(self) -> None:
        self._stopped = True
        self._retry_stop = True

    # ---- data-parallel learners ------------------------------------------------------------
    def ddp_context(self, members: Iterable[int], backend: Optional[str] = None, timeout_s: float = 120.0) -> Any:
        """A `DDPContext` for the learner nodes `members` (node ids): ranks follow the ids, and
        the lowest id publishes its address and a free port through the run's registry, so the
        learners form one torch.distributed group without any address in the config."""
        import ray

        from ding.utils.dist import DDPContext
        members = sorted(int(m) for m in members)
        if self.node_id not in members:
            raise ValueError(f'node {self.node_id} is not among the learners {members}')
        rank, key = members.index(self.node_id), 'ddp:' + ','.join(map(str, members))
        registry = getattr(self, 'registry', None)
        if registry is None:
            raise RuntimeError('ddp_context needs a node started by the ding launcher')
        if rank == 0:
            addr = ray.util.get_node_ip_address()
            ray.get(registry.put.remote(key, (addr, _free_port())))
        deadline = time.monotonic() + timeout_s
        while True:
            found = ray.get(registry.get.remote(key))
            if found is not None:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f'node {self.node_id}: no rendezvous address from node {members[0]}')
            time.sleep(0.05)
        addr, port = found
        return DDPContext(backend, addr=addr, port=port, rank=rank, world_size=len(members), timeout_s=timeout_s)

    # ---- receiving (called by the node actor's delivery lane) -----------------------------
    def receive(self, sender: int, event: str, args: tuple, kwargs: dict) -> None:
        with self._lock:
            deliver = self._deliver
            held = self._held.get(event)
            if deliver is None or held or not self._has_handler(event):
                if deliver is not None and not held and self._past_grace():
                    self._ignore(event, 1)
                    return
                self._held.setdefault(event, collections.deque()).append((time.monotonic(), args, kwargs))
                return
        deliver(event, *args, **kwargs)

    def _flush(self) -> None:
        while True:
            with self._lock:
                deliver = self._deliver
                if deliver is None:
                    return
                ready = [e for e, q in self._held.items() if q and self._has_handler(e)]
                if not ready:
                    return
                event = ready[0]
                _, args, kwargs = self._held[event].popleft()
                if not self._held[event]:
                    del self._held[event]
            deliver(event, *args, **kwargs)

    def _retry_loop(self) -> None:
        while not getattr(self, '_retry_stop', False):
            time.sleep(0.05)
            try:
                self._flush()
                self._drop_stale()
                self._check_inflight()
            except Exception:  # a handler's error must not kill the lane
                logger.exception('node %s: delivering a held event failed', self.node_id)

    def _past_grace(self) -> bool:
        return self._started_at is not None and time.monotonic() - self._started_at > self._grace_s

    def _ignore(self, event: str, n: int) -> None:
        if event not in self.ignored:
            logger.info('node %s has no handler for event %r: ignoring it (counted in router.ignored)', self.node_id,
                        event)
        self.ignored[event] = self.ignored.get(event, 0) + n

    def _drop_stale(self) -> None:
        with self._lock:
            if self._deliver is None or not self._past_grace():
                return
            for event, q in list(self._held.items()):
                if not self._has_handler(event):
                    self._ignore(event, len(q))
                    del self._held[event]

    # ---- delivery failures ------------------------------------------------------------------
    def _track(self, refs: List[Any], event: str) -> None:
        with self._lock:
            self._inflight.extend((ref, event, peer) for ref, peer in refs)
            many = len(self._inflight) > 256
        if many:
            self._check_inflight()

    def _check_inflight(self) -> None:
        with self._lock:
            pending, self._inflight = self._inflight, []
        if not pending:
            return
        import ray
        refs = [r for r, _, _ in pending]
        done, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        done = set(done)
        keep = []
        for ref, event, peer in pending:
            if ref not in done:
                keep.append((ref, event, peer))
                continue
            try:
                ray.get(ref)
            except Exception as e:  # a dead or restarting peer: counted, logged at most every 5 s per peer
                self.undelivered[peer] = self.undelivered.get(peer, 0) + 1
                now = time.monotonic()
                if now - self._last_report.get(peer, -1e9) > 5.0:
                    self._last_report[peer] = now
                    logger.warning('node %s: events to node %s are not delivered (%s; %d so far): it died or is '
                                   'restarting', self.node_id, peer, type(e).__name__, self.undelivered[peer])
        with self._lock:
            self._inflight = keep + self._inflight


def _free_port() -> int:
    import socket
    with socket.socket() as sock:  # asks the OS for a free port; torch.distributed listens on it
        sock.bind(('', 0))
        return sock.getsockname()[1]
