"""Framework overhead of `task.run`, and the overlap async_mode buys.

1. Per middleware call: 7 trivial middlewares (each bumps a kept counter), sync and async
   (each async schedule: `overlap` every step, `inline` every step, `auto`), microseconds per
   call = wall time / (steps * 7).
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

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'results', 'framework_overhead.json')


def trivial(i):

    def _mw(ctx):
        ctx.env_step += 1

    return contract(_mw, reads=('env_step', ), writes=('env_step', ), name=f'trivial{i}')


def sleeper(name, seconds):

    def _mw(ctx):
        time.sleep(seconds)

    return contract(_mw, name=name)


def timed_run(middlewares, steps, async_mode, schedule='overlap'):
    with task.start(async_mode=async_mode, ctx=OnlineRLContext(), async_schedule=schedule):
        for fn in middlewares:
            task.use(fn)
        begin = time.perf_counter()
        task.run(steps)
        elapsed = time.perf_counter() - begin
        env_step = task.ctx.env_step
    return elapsed, env_step


def overhead(steps, repeats):
    out = {}
    for mode in ('sync', 'async', 'async_inline', 'async_auto'):
        schedule = {'async_inline': 'inline', 'async_auto': 'auto'}.get(mode, 'overlap')
        best = min(timed_run([trivial(i) for i in range(7)], steps, mode != 'sync', schedule)[0]
                   for _ in range(repeats))
        out[f'{mode}_us_per_middleware_call'] = round(1e6 * best / (steps * 7), 2)
        out[f'{mode}_us_per_step'] = round(1e6 * best / steps, 2)
    for schedule in ('overlap', 'inline', 'auto'):
        env_step = timed_run([trivial(i) for i in range(7)], steps, True, schedule)[1]
        assert env_step == 7 * steps, f'async ({schedule}) lost counter updates: {env_step} != {7 * steps}'
    return out


def overlap(steps, stage_ms):
    stages = lambda: [sleeper('collect', stage_ms / 1e3), sleeper('train', stage_ms / 1e3)]  # noqa: E731
    sync_s, _ = timed_run(stages(), steps, False)
    async_s, _ = timed_run(stages(), steps, True)  # every step overlapped: the overlap itself
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
