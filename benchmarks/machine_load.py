"""What the machine itself allows, measured beside the benchmarks that compare against it.

This 2-vCPU VM shares its host: `/proc/stat` shows 0-40% of CPU time stolen by the
hypervisor, and two processes burning CPU side by side get 1.05x-2.0x the work of one,
varying minute to minute. A throughput ratio is only meaningful next to these numbers,
so the benchmarks record them for every measurement:

- `CpuTimes`: busy / idle / steal fractions of all CPUs over an interval (/proc/stat);
- `IndependentProcs`: the no-IPC ceiling of multi-process collection: `procs` processes
  that each step their share of the envs with fixed actions and report only at the end.
  No manager that steps envs in worker processes can beat it.
"""
import multiprocessing
import time
from typing import Callable, List

import numpy as np


class CpuTimes:
    """`with CpuTimes() as c: ...` then `c.fractions` -> {'busy', 'idle', 'steal'} of all CPUs."""

    def __enter__(self) -> 'CpuTimes':
        self._start = _proc_stat()
        return self

    def __exit__(self, *exc) -> None:
        end = _proc_stat()
        delta = [b - a for a, b in zip(self._start, end)]
        total = max(sum(delta), 1)
        idle = delta[3] + delta[4]  # idle + iowait
        steal = delta[7] if len(delta) > 7 else 0
        self.fractions = dict(busy=(total - idle - steal) / total, idle=idle / total, steal=steal / total)


def _proc_stat() -> List[int]:
    try:
        with open('/proc/stat') as f:
            return [int(x) for x in f.readline().split()[1:]]
    except OSError:  # not Linux: no figures, ratios still computed
        return [0] * 8


def _step_envs(conn, make_env: Callable, count: int) -> None:
    envs = [make_env() for _ in range(count)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    while True:
        steps = conn.recv()
        if steps is None:
            return
        for _ in range(steps):
            for env in envs:
                _, _, term, trunc, _ = env.step(0)
                if term or trunc:
                    env.reset()
        conn.send(steps)


class IndependentProcs:
    """`procs` worker processes stepping `env_num` envs of `make_env` (a picklable
    callable returning a gymnasium env) in equal shares; `run(steps)` -> env steps/s."""

    def __init__(self, make_env: Callable, env_num: int, procs: int = 2) -> None:
        ctx = multiprocessing.get_context('fork')
        shares = [len(s) for s in np.array_split(np.arange(env_num), procs)]
        self.env_num, self._conns, self._procs = env_num, [], []
        for share in shares:
            parent, child = ctx.Pipe()
            p = ctx.Process(target=_step_envs, args=(child, make_env, share), daemon=True)
            p.start()
            self._conns.append(parent)
            self._procs.append(p)

    def run(self, steps: int) -> float:
        start = time.perf_counter()
        for c in self._conns:
            c.send(steps)
        for c in self._conns:
            c.recv()
        return steps * self.env_num / (time.perf_counter() - start)

    @property
    def pids(self) -> List[int]:
        return [p.pid for p in self._procs]

    def close(self) -> None:
        for c in self._conns:
            c.send(None)
        for p in self._procs:
            p.join(2)
            if p.is_alive():
                p.kill()


def parallel_speedup(make_env: Callable, steps: int = 500) -> float:
    """Env steps/s of two processes stepping one env each over that of one process: the
    parallelism the machine offers right now (2.0 on two idle dedicated cores)."""
    rates = []
    for procs in (1, 2):
        runner = IndependentProcs(make_env, procs, procs)
        try:
            runner.run(20)  # warm-up
            rates.append(runner.run(steps))
        finally:
            runner.close()
    return rates[1] / rates[0]
