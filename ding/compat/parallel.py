"""`Parallel`: DI-engine's multi-process launcher, on Ray.

`Parallel.runner(n_parallel_workers=4, topology='mesh')(main)` runs `main()` on four Ray
actors (a local Ray cluster is started and torn down, or `address=` joins one); inside each,
`task.router` is active with its `node_id` and `labels`. `ditask` is the same launcher on the
command line. Ray is imported only here, when a run starts (`pip install "ding[dist]"`).
DI-engine's transport options (`mq_type`, `protocol`, `ports`, redis) have no effect: Ray
carries every message.
"""
import logging
from typing import Any, Callable, Iterable, Optional, Union

logger = logging.getLogger('ding.distributed')
RAY_CARRIES = ('Ray carries the messages of a distributed ding run: --mq-type {mq!r} (and --ports, --protocol, '
               'redis settings) are ignored. To run on several machines, start a Ray cluster '
               '(`ray start --head` on one, `ray start --address HOST:PORT` on the others) and pass --address.')


class Parallel:
    """`Parallel()` is the current node's router (DI-engine's singleton); `Parallel.runner`
    launches a distributed run."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        from ding.framework import task
        return task.router

    @classmethod
    def runner(cls, n_parallel_workers: int = 1, mq_type: str = 'ray', attach_to: Any = None, protocol: str = 'tcp',
               address: Optional[str] = None, ports: Any = None, topology: str = 'mesh',
               labels: Union[None, str, Iterable[str]] = None, node_ids: Any = None, auto_recover: bool = False,
               max_retries: float = float('inf'), redis_host: Optional[str] = None, redis_port: Optional[int] = None,
               startup_interval: float = 0.0, **launch_kwargs: Any) -> Callable[..., Any]:
        """Returns `run(main, *args, **kwargs)` -> {node_id: main's return}; raises
        `DistributedRunError` when a node fails (after ending every node)."""
        if mq_type not in ('ray', None):
            logger.warning(RAY_CARRIES.format(mq=mq_type))

        def _runner(main: Any, *args: Any, **kwargs: Any) -> Any:
            from ding.framework.distributed.launcher import launch
            return launch(main, n_parallel_workers=n_parallel_workers, topology=topology, node_ids=node_ids,
                          labels=labels, address=address, attach_to=attach_to, startup_interval=startup_interval,
                          args=args, kwargs=kwargs, **launch_kwargs)

        return _runner
