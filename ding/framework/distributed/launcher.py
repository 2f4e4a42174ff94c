"""The one launcher behind `ditask`, `Parallel.runner(...)(main)` and `ding train --collectors`.

It joins a Ray cluster (`address`) or starts a local one (torn down at the end), creates one
`NodeActor` per worker (node ids, labels and peers decided here, so `main()` is unchanged),
runs `main()` in each and waits. The run ends when every node's `main()` returned; a node that
raises ends every node (they get `finish`), and the error is raised here. Ctrl-C does the
same. Nothing outlives the run: the actors are killed and a cluster started here is shut down.
"""
import contextlib
import logging
import os
import signal
import sys
import time
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from ding.framework.distributed import require_ray
from ding.framework.distributed.node import CONCURRENCY_GROUPS, NodeActor
from ding.framework.distributed.placement import WorkerOptions, check_fits
from ding.framework.distributed.registry import NAME, NAMESPACE, Registry

logger = logging.getLogger('ding.distributed')
TOPOLOGIES = ('mesh', 'star', 'alone')


class DistributedRunError(RuntimeError):
    """A node of a distributed run failed; the run was ended on every node."""


def parse_ids(node_ids: Union[None, int, str, Sequence[int]]) -> Optional[List[int]]:
    if node_ids is None or node_ids == '':
        return None
    if isinstance(node_ids, int):
        return [node_ids]
    if isinstance(node_ids, str):
        return [int(x) for x in node_ids.split(',') if x.strip()]
    return [int(x) for x in node_ids]


def parse_labels(labels: Union[None, str, Iterable[str]]) -> List[str]:
    if not labels:
        return []
    if isinstance(labels, str):
        return [x.strip() for x in labels.split(',') if x.strip()]
    return list(labels)


def use_token_auth_for(address: Optional[str]) -> None:
    """A cluster from `ray start` authenticates clients with the token in ~/.ray/auth_token,
    but a client joining it by address does not send one unless RAY_AUTH_MODE=token was set
    before ray was imported. Set it then, when a token is there and the user chose nothing."""
    if not address or 'RAY_AUTH_MODE' in os.environ or 'ray' in sys.modules:
        return
    token_file = os.environ.get('RAY_AUTH_TOKEN_PATH') or os.path.expanduser('~/.ray/auth_token')
    if os.environ.get('RAY_AUTH_TOKEN') or os.path.isfile(token_file):
        os.environ['RAY_AUTH_MODE'] = 'token'


def ensure_ray(address: Optional[str] = None, num_cpus: Optional[float] = None, **init_kwargs: Any) -> bool:
    """Connect to `address` or start a local cluster; True when this call started Ray (so the
    caller shuts it down). A driver that already called ray.init keeps its session."""
    use_token_auth_for(address)
    ray = require_ray()
    if ray.is_initialized():
        return False
    if address:
        ray.init(address=address, namespace=NAMESPACE, **init_kwargs)
    else:
        # 'local': a new cluster even when one from `ray start` runs here (a bare ray.init() would
        # join that one, and refuse num_cpus); joining is what --address is for
        ray.init(address='local', num_cpus=num_cpus if num_cpus is not None else os.cpu_count(),
                 include_dashboard=False, namespace=NAMESPACE, **init_kwargs)
        from ding.framework.distributed.watchdog import start_watchdog
        start_watchdog()  # a SIGKILLed driver cannot shut Ray down: this ends what it leaves
    return True


def launch(main: Any, n_parallel_workers: int = 1, topology: str = 'mesh', node_ids: Any = None, labels: Any = None,
           address: Optional[str] = None, attach_to: Any = None, startup_interval: float = 0.0,
           args: Sequence[Any] = (), kwargs: Optional[dict] = None, num_cpus: Optional[float] = None,
           cpus_per_worker: float = 0.0, torch_threads: int = 1, node_resources: Optional[Sequence[dict]] = None,
           timeout_s: Optional[float] = None, ray_init_kwargs: Optional[dict] = None,
           max_restarts: int = 3, sigterm_as_interrupt: bool = False,
           workers: Optional[Sequence[WorkerOptions]] = None) -> Dict[int, Any]:
    """Run `main(*args, **kwargs)` on `n_parallel_workers` node actors; returns {node_id: result}.

    `main` is a callable or 'module.function' (imported in each node). `node_resources[i]`:
    Ray resources of worker i (e.g. {'collector_host': 1} to place it on a labelled machine).
    `attach_to` joins nodes already running on the cluster: with Ray every
    launch on one cluster is connected, so it only matters that the cluster is the same.
    A node whose process dies (not one whose main() raised) is restarted and runs main() again,
    up to `max_restarts` times, unless it is a learner: then the run ends with an error.
    `workers[i]` (placement.WorkerOptions: CPUs, GPUs, resources, torch threads, CPU pin) sets
    worker i's request in full, in place of `cpus_per_worker`/`torch_threads`/`node_resources`."""
    if topology not in TOPOLOGIES:
        raise ValueError(f'topology must be one of {TOPOLOGIES}, got {topology!r}')
    if n_parallel_workers < 1:
        raise ValueError(f'n_parallel_workers must be >= 1, got {n_parallel_workers}')
    if workers is None:
        workers = [WorkerOptions(num_cpus=cpus_per_worker, torch_threads=torch_threads,
                                 resources=dict(node_resources[i]) if node_resources and i < len(node_resources)
                                 and node_resources[i] else {}) for i in range(n_parallel_workers)]
    elif len(workers) != n_parallel_workers:
        raise ValueError(f'workers has {len(workers)} entries for {n_parallel_workers} workers')
    started = ensure_ray(address, num_cpus, **(ray_init_kwargs or {}))
    ray = require_ray()
    try:
        check_fits(ray, workers)
    except ValueError:
        if started:
            ray.shutdown()
        raise
    _received.clear()
    if sigterm_as_interrupt:  # after ray.init, which installs its own SIGTERM handler
        signal.signal(signal.SIGTERM, interrupt_on_signal)
        # Ctrl-C stops the run even where the shell started it with SIGINT ignored (a background job)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    actors: Dict[int, Any] = {}
    registry, launch_id = None, 0
    try:
        registry, launch_id = _registry(ray)
        ids = ray.get(registry.allocate.remote(n_parallel_workers, parse_ids(node_ids)))
        node_cls = ray.remote(concurrency_groups=CONCURRENCY_GROUPS)(NodeActor)
        sys_path = [p for p in sys.path if p and os.path.isdir(p)]
        sys_path.insert(0, os.getcwd())
        for i, node_id in enumerate(ids):
            options = dict(workers[i].actor_options(), max_concurrency=1, max_restarts=max_restarts)
            actors[node_id] = node_cls.options(**options).remote(
                node_id, launch_id, parse_labels(labels), sys_path, os.getcwd(), workers[i].torch_threads,
                pin_index=i if workers[i].pin_cpu else None)
        ray.get(registry.register.remote(launch_id, topology, actors))
        refs = {}

        def start(node_id: int) -> Any:
            return actors[node_id].run.remote(main, tuple(args), kwargs or {}, registry)

        for node_id in actors:
            refs[start(node_id)] = node_id
            if startup_interval:
                time.sleep(startup_interval)
        return _wait(ray, refs, actors, timeout_s, _Restarter(ray, registry, start, max_restarts))
    except KeyboardInterrupt:
        logger.warning('interrupted: ending every node')
        _finish_all(ray, actors)
        raise
    finally:
        for actor in actors.values():
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)
        if registry is not None and not started:
            with contextlib.suppress(Exception):
                if launch_id == 1:  # this launch made the registry: it ends with it
                    ray.kill(registry)
                else:
                    ray.get(registry.unregister.remote(list(actors)), timeout=10)
        if started:
            ray.shutdown()


_received: Dict[str, int] = {}  # the signal that stopped the run, for the CLI (see interrupt_on_signal)


def interrupt_on_signal(signum: int, frame: Any) -> None:
    """SIGTERM on the driver ends the run as Ctrl-C does, a KeyboardInterrupt that keeps its
    `signum`: the CLI reports it as SIGTERM and exits 143, not as SIGINT with 130. The signal is
    also kept here (`received_signal`): raised inside `ray.wait`, the interrupt comes out of Ray as
    a new, plain KeyboardInterrupt."""
    _received['signum'] = signum
    stop = KeyboardInterrupt(signal.Signals(signum).name)
    stop.signum = signum
    raise stop


def received_signal(stop: BaseException) -> int:
    """The signal behind the KeyboardInterrupt `stop` that ended a launch (SIGINT unless told)."""
    return getattr(stop, 'signum', None) or _received.get('signum') or signal.SIGINT


def _registry(ray: Any) -> tuple:
    """The cluster's registry (made by the first launch, found by later ones) and a new launch id."""
    for attempt in range(20):
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
        # on the driver's machine: it goes away with that machine only
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        registry = ray.remote(Registry).options(name=NAME, namespace=NAMESPACE, get_if_exists=True, num_cpus=0,
                                                scheduling_strategy=here).remote()
        try:
            return registry, ray.get(registry.new_launch.remote())
        except ray.exceptions.RayActorError:  # the previous launch's registry is still going away
            time.sleep(0.25)
    raise RuntimeError('could not reach or create the ding registry actor on this Ray cluster')


REFINISH_S = 2.0  # while the run ends, how often the nodes still running are told to finish


class _Restarter:
    """Runs main() again on a node whose process died (Ray restarted the actor), unless the
    node is a learner or has used up its restarts."""

    def __init__(self, ray: Any, registry: Any, start: Any, max_restarts: int) -> None:
        self.ray, self.registry, self.start, self.max_restarts = ray, registry, start, max_restarts
        self.restarts: Dict[int, int] = {}
        self.waits: Dict[int, int] = {}

    def __call__(self, node_id: int, error: BaseException) -> Optional[Any]:
        ex = self.ray.exceptions
        if isinstance(error, getattr(ex, 'ActorUnavailableError', ())):  # Ray is restarting it right now
            self.waits[node_id] = self.waits.get(node_id, 0) + 1
            if self.waits[node_id] == 1:
                logger.warning('node %s died and Ray is restarting it; its main() will run again', node_id)
            if self.waits[node_id] <= 240:
                time.sleep(0.5)
                return self.start(node_id)
        if not _died(self.ray, error):
            return None  # main() raised: that is the user's error, not a fault to recover from
        try:
            roles = self.ray.get(self.registry.roles_of.remote(node_id), timeout=10)
        except Exception:
            roles = []
        if 'learner' in roles:
            logger.error('node %s (learner) died: the run cannot go on; resume it from its last checkpoint '
                         '(ding resume)', node_id)
            return None
        if self.restarts.get(node_id, 0) >= self.max_restarts:
            return None
        self.restarts[node_id] = self.restarts.get(node_id, 0) + 1
        logger.warning('node %s (%s) died; restarting it (restart %d of %d)', node_id, ','.join(roles) or 'no role',
                       self.restarts[node_id], self.max_restarts)
        return self.start(node_id)


def _wait(ray: Any, refs: Dict[Any, int], actors: Dict[int, Any], timeout_s: Optional[float],
          restart: Optional[_Restarter] = None) -> Dict[int, Any]:
    results: Dict[int, Any] = {}
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    pending = list(refs)
    failure = None
    last_finish = 0.0
    while pending:
        wait_s = 1.0 if deadline is None else max(0.0, min(1.0, deadline - time.monotonic()))
        done, pending = ray.wait(pending, num_returns=1, timeout=wait_s)
        if results and failure is None and not done and time.monotonic() - last_finish > REFINISH_S:
            # the run is ending: a node whose restarted main() began after the broadcast finish
            # would wait forever for a learner that is gone; tell it again until it returns
            _finish_all(ray, {k: a for k, a in actors.items() if k not in results})
            last_finish = time.monotonic()
        for ref in done:
            node_id = refs[ref]
            try:
                returned = ray.get(ref)
                results[node_id] = returned.value
                if returned.finish_reason:  # said here: the node's own log may not reach the driver in time
                    logger.info('node %s ended the run: %s', node_id, returned.finish_reason)
                # the run is ending: a node restarted meanwhile may have missed the broadcast finish
                _finish_all(ray, {k: a for k, a in actors.items() if k not in results})
            except Exception as e:  # the node's main() raised or its process died
                if results and failure is None and _died(ray, e):
                    # the run is ending (a node returned): a node that died or is being restarted
                    # meanwhile has nothing left to contribute; that is no failure of the run
                    logger.warning('node %s died while the run was ending: %s', node_id, type(e).__name__)
                    results[node_id] = None
                    continue
                again = restart(node_id, e) if restart is not None and failure is None and not results else None
                if again is not None:
                    refs[again] = node_id
                    pending.append(again)
                    continue
                if failure is None:
                    failure = (node_id, e)
                    logger.error('node %s failed; ending every node: %s', node_id, e)
                    _finish_all(ray, {k: a for k, a in actors.items() if k != node_id})
                    deadline = time.monotonic() + 30.0  # the others get 30 s to end their step
        if deadline is not None and time.monotonic() > deadline and pending:
            if failure is None:
                where = _where(ray, {refs[ref]: actors[refs[ref]] for ref in pending if refs[ref] in actors})
                _finish_all(ray, actors)
                failure = (None, TimeoutError(f'the run exceeded {timeout_s} s' + ''.join(
                    f'; node {node} was at {_innermost(stack)}' for node, stack in sorted(where.items()))))
                deadline = time.monotonic() + 30.0
            else:
                break
    if failure is not None:
        node_id, error = failure
        where = 'the run' if node_id is None else f'node {node_id}'
        cause = getattr(error, 'cause', None) or error  # a RayTaskError wraps the node's own exception
        raise DistributedRunError(f'{where} failed: {type(cause).__name__}: {cause}') from error
    return results


def _where(ray: Any, actors: Dict[int, Any], timeout_s: float = 5.0) -> Dict[int, str]:
    """Each unfinished node's main() stack (logged in full), asked on its `diag` lane; a node that
    does not answer within `timeout_s` is left out."""
    asked = {}
    for node_id, actor in actors.items():
        with contextlib.suppress(Exception):
            asked[node_id] = actor.where.options(concurrency_group='diag').remote()
    stacks = {}
    for node_id, ref in asked.items():
        try:
            stacks[node_id] = ray.get(ref, timeout=timeout_s)
        except Exception as e:
            logger.error('node %s did not say where it is (%s)', node_id, type(e).__name__)
            continue
        logger.error('node %s had not finished; its main() was at:\n%s', node_id, stacks[node_id])
    return stacks


def _innermost(stack: str) -> str:
    """'file.py:LINE in function' of a formatted stack's innermost frame outside Ray and the
    standard library (where a wait inside `ray.get` was called from, say)."""
    import re
    import sysconfig
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', stack)
    if not frames:
        return stack.strip() or 'an unknown place'
    stdlib = sysconfig.get_paths()['stdlib']
    ours = [f for f in frames if f'{os.sep}ray{os.sep}' not in f[0] and not f[0].startswith(stdlib)] or frames
    path, line, function = ours[-1]
    return f'{os.path.basename(path)}:{line} in {function}'


def _died(ray: Any, error: BaseException) -> bool:
    """The node's process died (or Ray is restarting it), as opposed to its main() raising."""
    ex = ray.exceptions
    return isinstance(error, ex.RayActorError) and not isinstance(error, ex.RayTaskError)


def _finish_all(ray: Any, actors: Dict[int, Any]) -> None:
    for actor in actors.values():
        with contextlib.suppress(Exception):
            actor.finish.options(concurrency_group='io').remote()
