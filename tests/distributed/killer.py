"""Kills one node of a running distributed run, as a crash would, from outside it:

    python -m tests.distributed.killer --pid PID --node N [--after-file F] [--on-stdin] [--no-restart]

It finds the run's Ray cluster through the run's own raylet (a child of PID), not Ray's `auto`
address (another cluster, such as the test session's, may be the newest). It connects before
the trigger, prints `ready`, waits for --after-file to exist or for `kill` on stdin (an empty
line: the run ended first, nothing is killed), kills node N's actor and prints `killed`."""
import argparse
import os
import sys
import time

import psutil


def gcs_address(pid: int, timeout_s: float = 120.0) -> str:
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            for child in psutil.Process(pid).children(recursive=True):
                try:
                    args = child.cmdline()
                except (psutil.NoSuchProcess, psutil.AccessDenied):
                    continue
                if args and 'raylet' in args[0]:
                    for arg in args:
                        if arg.startswith('--gcs-address='):
                            return arg.split('=', 1)[1]
        except psutil.NoSuchProcess:
            break
        time.sleep(0.2)
    raise SystemExit(f'no Ray cluster under process {pid}')


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument('--pid', type=int, required=True)
    p.add_argument('--node', type=int, required=True)
    p.add_argument('--after-file', default=None)
    p.add_argument('--on-stdin', action='store_true')
    p.add_argument('--no-restart', action='store_true')
    args = p.parse_args()
    # a local cluster started by `ray.init` uses token authentication (~/.ray/auth_token); a
    # client given its address must say so, where `auto` would have read it from the session
    os.environ.setdefault('RAY_AUTH_MODE', 'token')
    import ray
    ray.init(address=gcs_address(args.pid), namespace='ding', log_to_driver=False)
    deadline = time.time() + 200
    while True:  # the registry and the node appear once the launcher made them
        try:
            registry = ray.get_actor('ding_registry', namespace='ding')
            if args.node in ray.get(registry.nodes.remote()):
                break
        except ValueError:
            pass
        if time.time() > deadline:
            raise SystemExit(f'node {args.node} never appeared')
        time.sleep(0.2)
    print('ready', flush=True)
    if args.on_stdin and sys.stdin.readline().strip() != 'kill':
        return
    while args.after_file and not os.path.exists(args.after_file):
        if time.time() > deadline:
            raise SystemExit(f'{args.after_file} never appeared')
        time.sleep(0.1)
    ray.kill(ray.get(registry.nodes.remote())[args.node], no_restart=args.no_restart)
    print('killed', flush=True)
    ray.shutdown()


if __name__ == '__main__':
    main()
