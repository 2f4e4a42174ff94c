"""Framework overhead of `task.run`, and the overlap async_mode buys.

1. Per middleware call: 7 trivial middlewares (each bumps a kept counter of its own: a kept
   field has one writer stage), sync and async, microseconds per call = wall time / (steps * 7).
2. Overlap factor: a two-stage pipeline whose stages each spend `stage_ms` outside the GIL
   (time.sleep, like env stepping in subprocesses or a torch kernel); async steps/s divided by
   sync steps/s. Two equal stages can at best double the rate; the target is >= 1.8.

Writes benchmarks/results/framework_overhead.json. `--quick` runs a small setting.
"""
import argparse
import json
import os
import platform
import time

from ding.framework import OnlineRLContext, task
from ding.framework.contract import contract
from ding.utils.fileio import atomic_write_json

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results', 'framework_overhead.json')


COUNTERS = tuple(f'count{i}' for i in range(7))


def trivial(i):
    name = COUNTERS[i]

    def _mw(ctx):
        setattr(ctx, name, getattr(ctx, name) + 1)

    return contract(_mw, reads=(name, ), writes=(name, ), name=f'trivial{i}')


def sleeper(name, seconds):

    def _mw(ctx):
        time.sleep(seconds)

    return contract(_mw, name=name)


def timed_run(middlewares, steps, async_mode):
    """Seconds of `task.run(steps)`, and the counters the run ended with."""
    ctx = OnlineRLContext()
    ctx.declare(*COUNTERS)
    ctx.keep(*COUNTERS)
    for name in COUNTERS:
        setattr(ctx, name, 0)
    with task.start(async_mode=async_mode, ctx=ctx):
        for fn in middlewares:
            task.use(fn)
        begin = time.perf_counter()
        task.run(steps)
        elapsed = time.perf_counter() - begin
        counts = [getattr(task.ctx, name) for name in COUNTERS]
    return elapsed, counts


def overhead(steps, repeats):
    out = {}
    for mode in ('sync', 'async'):
        best = min(timed_run([trivial(i) for i in range(7)], steps, mode == 'async')[0] for _ in range(repeats))
        out[f'{mode}_us_per_middleware_call'] = round(1e6 * best / (steps * 7), 2)
        out[f'{mode}_us_per_step'] = round(1e6 * best / steps, 2)
    counts = timed_run([trivial(i) for i in range(7)], steps, True)[1]
    assert counts == [steps] * 7, f'async lost counter updates: {counts} != {[steps] * 7}'
    return out


def overlap(steps, stage_ms):
    stages = lambda: [sleeper('collect', stage_ms / 1e3), sleeper('train', stage_ms / 1e3)]  # noqa: E731
    sync_s, _ = timed_run(stages(), steps, False)
    async_s, _ = timed_run(stages(), steps, True)
    return {
        'stage_ms': stage_ms,
        'steps': steps,
        'sync_steps_per_s': round(steps / sync_s, 1),
        'async_steps_per_s': round(steps / async_s, 1),
        'overlap_factor': round(sync_s / async_s, 3),
        'target': 1.8,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--quick', action='store_true', help='small setting, to check the script runs')
    parser.add_argument('--out', default=RESULTS)
    args = parser.parse_args()
    steps, repeats, overlap_steps = (200, 1, 40) if args.quick else (5000, 3, 400)
    result = {
        'benchmark': 'framework_overhead',
        'quick': args.quick,
        'machine': {'python': platform.python_version(), 'cpus': os.cpu_count()},
        'trivial_middlewares': dict(count=7, steps=steps, **overhead(steps, repeats)),
        'two_stage_overlap': overlap(overlap_steps, stage_ms=5.0),
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    atomic_write_json(args.out, result)
    print(json.dumps(result, indent=2))


if __name__ == '__main__':
    main()
