"""Instructions per step, sync against async_mode's schedules, counted by valgrind (callgrind).

Why: a difference of under 1% between sync and async is below what wall time shows on a shared
machine (the paired rounds of `async_schedule_ab.py` range over +-20%), but the instructions a
run executes do not move with the machine's load. Each setting runs `async_schedule_ab.py --one`
(the comparison's pipeline, one torch thread, no evaluator) under callgrind twice, to
`--env-steps` A and B; the difference over the steps between them is the cost of one step, with
imports and set-up cancelled out. Reported: instructions per step of each setting and their
ratio to sync's. Instructions are not time (an instruction of Python bookkeeping and one of a
matrix kernel cost differently), so this says what work async adds, not what it costs in seconds.

    python benchmarks/async_instructions.py [--algo sac] [--env-steps 1100 1300] [--settings sync inline]

Slow: a SAC step runs about 600x slower under valgrind (1.9 s), so the defaults take about 15
minutes, one setting per core at a time. Needs `valgrind` on the PATH.
Writes benchmarks/results/async_instructions.json.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from ding.framework.overlap_schedule import SCHEDULES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, 'benchmarks', 'results', 'async_instructions.json')
AB = os.path.join(ROOT, 'benchmarks', 'async_schedule_ab.py')
SETTINGS = ['sync', *SCHEDULES]  # as in async_schedule_ab.py


def count(setting: str, algo: str, env_steps: int, seed: int) -> dict:
    """One run under callgrind: its instructions and its steps."""
    with tempfile.TemporaryDirectory(prefix='ding_cg_') as tmp:
        cmd = ['valgrind', '--tool=callgrind', f'--callgrind-out-file={tmp}/cg.out', sys.executable, AB,
               '--one', setting, '--algo', algo, '--env-steps', str(env_steps), '--seed', str(seed)]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError(f'{setting} to {env_steps} env steps failed:\n{proc.stderr[-2000:]}')
    collected = re.search(r'Collected : (\d+)', proc.stderr)
    if collected is None:
        raise RuntimeError(f'no instruction count in callgrind output:\n{proc.stderr[-2000:]}')
    run = json.loads(proc.stdout.strip().splitlines()[-1])
    schedule = run['schedule']  # None for sync, which does not count its steps
    steps = schedule['inline_steps'] + schedule['overlapped_steps'] if schedule else None
    return dict(instructions=int(collected.group(1)), steps=steps, seconds_under_valgrind=run['seconds'])


def per_step(small: dict, large: dict, steps: int) -> float:
    return (large['instructions'] - small['instructions']) / steps


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--algo', default='sac', choices=['sac', 'dqn', 'ppo'])
    p.add_argument('--env-steps', type=int, nargs=2, default=[1100, 1300], metavar=('A', 'B'))
    p.add_argument('--settings', nargs='+', default=['sync', 'inline'], choices=SETTINGS)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--jobs', type=int, default=2, help='runs at once (one per core)')
    p.add_argument('--out', default=RESULTS)
    args = p.parse_args()
    if shutil.which('valgrind') is None:
        p.error('valgrind is not on the PATH')
    small, large = sorted(args.env_steps)
    args.settings = ['sync'] + [s for s in args.settings if s != 'sync']
    if len(args.settings) < 2:
        p.error('name an async setting to compare with sync (a sync run does not report its steps)')
    jobs = [(s, n) for s in args.settings for n in (small, large)]
    with ThreadPoolExecutor(args.jobs) as pool:
        runs = dict(zip(jobs, pool.map(lambda job: count(job[0], args.algo, job[1], args.seed), jobs)))
    # async runs report their steps; sync runs the same steps (the same pipeline to the same env steps)
    steps = {n: next(runs[(s, n)]['steps'] for s in args.settings if runs[(s, n)]['steps']) for n in (small, large)}
    step_delta = steps[large] - steps[small]
    out = {s: dict(instructions_per_step=round(per_step(runs[(s, small)], runs[(s, large)], step_delta)),
                   runs={str(n): runs[(s, n)] for n in (small, large)}) for s in args.settings}
    base = out['sync']['instructions_per_step']
    for s in args.settings:
        out[s]['ratio_to_sync'] = round(out[s]['instructions_per_step'] / base, 5)
        out[s]['extra_per_step'] = out[s]['instructions_per_step'] - base
    from ding.utils.fileio import atomic_write_json
    atomic_write_json(args.out, dict(
        benchmark='async_instructions', date=datetime.datetime.now(datetime.timezone.utc).isoformat(),
        algo=args.algo, env_steps=[small, large], steps=[steps[small], steps[large]], seed=args.seed,
        python=sys.version.split()[0], settings=out))
    for s in args.settings:
        print(f"{s}: {out[s]['instructions_per_step']:,} instructions a step, {out[s]['ratio_to_sync']}x sync")


if __name__ == '__main__':
    main()
