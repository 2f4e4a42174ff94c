"""`ditask`: DI-engine's launcher command, on Ray.

    ditask --package . --main dqn.main --parallel-workers 4 --topology mesh

runs `main()` of module `dqn` (found under --package) on 4 Ray actors of a local Ray cluster
that is started for the run and torn down after it. `--address HOST:PORT` (or `auto`) joins a
running cluster instead (`ray start --head` on one machine, `ray start --address HOST:PORT` on
the others); a second `ditask` on the same cluster (`--attach-to`, `--node-ids`) joins the
first one's run. DI-engine's transport flags (`--mq-type`, `--ports`, `--protocol`, redis) are
accepted and ignored: Ray carries every message. Exit status: 0 when every node's main()
returned, 1 when a node failed (every node is ended), 130 on Ctrl-C.
"""
import argparse
import importlib.util
import logging
import os
import sys
from typing import List, Optional


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog='ditask', description=__doc__.split('\n\n')[0])
    p.add_argument('-p', '--package', type=str, default=None,
                   help='directory holding your code (default: the current directory)')
    p.add_argument('-m', '--main', type=str, default=None, help='MODULE.FUNCTION to run on every worker')
    p.add_argument('--parallel-workers', type=int, default=1, help='number of workers (Ray actors), default 1')
    p.add_argument('--topology', choices=['alone', 'mesh', 'star'], default='alone',
                   help='who talks to whom within this launch (default: alone, as DI-engine)')
    p.add_argument('--node-ids', type=str, default=None, help='first node id, or a comma-separated list')
    p.add_argument('--labels', type=str, default=None, help='comma-separated labels of every worker')
    p.add_argument('--address', type=str, default=None,
                   help='Ray cluster to join, HOST:PORT or auto (default: start a local one for this run)')
    p.add_argument('--attach-to', type=str, default=None,
                   help='join workers already running on the cluster (with --address); the value itself is unused')
    p.add_argument('--ports', type=str, default=None, help='ignored: Ray chooses its ports')
    p.add_argument('--protocol', choices=['tcp', 'ipc'], default='tcp', help='ignored: Ray carries the messages')
    p.add_argument('--mq-type', type=str, default=None, help='ignored: Ray carries the messages (nng/redis unused)')
    p.add_argument('--redis-host', type=str, default=None, help='ignored')
    p.add_argument('--redis-port', type=int, default=None, help='ignored')
    p.add_argument('--platform', type=str, default=None, help='ignored (Ray places the workers)')
    p.add_argument('--platform-spec', type=str, default=None, help='ignored')
    p.add_argument('--startup-interval', type=float, default=0.0,
                   help='seconds between starting two workers (default 0: events wait for their handlers)')
    p.add_argument('--local_rank', type=int, default=0, help='accepted for torch.distributed.launch compatibility')
    p.add_argument('--num-cpus', type=float, default=None, help='CPUs of a local Ray cluster (default: all cores)')
    p.add_argument('--torch-threads', type=int, default=1, help='torch threads per worker (default 1)')
    return p


def resolve(package: Optional[str], main: Optional[str]) -> tuple:
    """(absolute package dir, 'module.function'), with DI-engine's defaults; the module must exist."""
    package = os.path.abspath(package or os.getcwd())
    if not os.path.isdir(package):
        raise SystemExit(f'ditask: --package {package} is not a directory')
    if main is None:
        main = f'{os.path.basename(package)}.main'
    module, _, func = main.rpartition('.')
    if not module or not func:
        raise SystemExit(f'ditask: --main must be MODULE.FUNCTION, got {main!r}')
    for path in (package, os.path.join(package, module.split('.')[0])):
        if path not in sys.path:
            sys.path.insert(0, path)
    if importlib.util.find_spec(module) is None:
        raise SystemExit(f'ditask: module {module!r} not found under --package {package}')
    return package, main


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format='%(asctime)s %(levelname)s %(name)s: %(message)s')
    log = logging.getLogger('ditask')
    from ding.compat.parallel import RAY_CARRIES
    if args.mq_type not in (None, 'ray'):
        log.warning(RAY_CARRIES.format(mq=args.mq_type))
    elif args.ports or args.redis_host or args.protocol != 'tcp':
        log.warning(RAY_CARRIES.format(mq='nng'))
    if args.attach_to and not args.address:
        log.warning('--attach-to joins workers of a Ray cluster: pass --address of that cluster as well; '
                    'without it a new local cluster starts and there is nothing to attach to')
    _, main_name = resolve(args.package, args.main)
    from ding.framework.distributed.launcher import DistributedRunError, launch
    try:
        launch(main_name, n_parallel_workers=args.parallel_workers, topology=args.topology, node_ids=args.node_ids,
               labels=args.labels, address=args.address, attach_to=args.attach_to,
               startup_interval=args.startup_interval, num_cpus=args.num_cpus, torch_threads=args.torch_threads,
               sigterm_as_interrupt=True)  # SIGTERM ends the run like Ctrl-C: nothing left behind
    except DistributedRunError as e:
        print(f'ditask: {e}', file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print('ditask: interrupted; every worker was stopped', file=sys.stderr)
        return 130
    return 0


if __name__ == '__main__':
    sys.exit(main())
