"""async_mode against sync where overlap has little to hide: the classic benchmarks' own pipelines.

Issue 35 asks that a pipeline where overlap cannot pay is not slower in async mode than in sync.
This runs the comparison's DQN CartPole-v1 and SAC Pendulum-v1 pipelines (dizoo configs, envs
in this process, a CPU learner) for a fixed number of env steps, each through the comparison's
own runner (benchmarks/compare/runners/ours_runner.py, one process per run, one torch thread),
sync and async alternating within each round. Nothing sleeps: the envs are the gymnasium ones.

Reported per benchmark: the median wall seconds of each mode and async / sync of the medians
(above 1: async is slower), with each run's evaluation seconds. The evaluation (every 1,000 env
steps, one observation at a time) is a stage of the pipeline like any other, so in async mode it
overlaps training and its wall seconds cannot be subtracted from the run's; and its cost depends
on the episode lengths the policy reaches, which differ between runs. The seed is a tuning seed:
this measures time per env step, not learning.

    python benchmarks/throughput/async_classic.py [--rounds 3] [--seed 7] [--out PATH]

Writes benchmarks/results/async_classic.json.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BENCH)
from machine_load import CpuTimes  # noqa: E402

from ding.utils.fileio import atomic_write_json  # noqa: E402

RUNNER = os.path.join(BENCH, 'compare', 'runners', 'ours_runner.py')
OUT = os.path.join(BENCH, 'results', 'async_classic.json')
# benchmark name in the comparison -> env steps per run (a few seconds to half a minute each)
ENV_STEPS = {'dqn_cartpole_v1': 6000, 'sac_pendulum': 4000}


def one_run(bench: str, seed: int, env_steps: int, async_mode: bool) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'log.jsonl')
        cmd = [sys.executable, RUNNER, '--benchmark', bench, '--seed', str(seed), '--out', log, '--max-env-steps',
               str(env_steps), '--torch-threads', '1', '--whole-budget'] + (['--async-mode'] if async_mode else [])
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(log) as f:
            end = [json.loads(line) for line in f if '"end"' in line][-1]
    return dict(env_steps=end['env_steps'], wall_s=end['wall_s'], eval_s=end['eval_s'],
                best_return=end.get('best_return'))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--seed', type=int, default=7)
    p.add_argument('--benchmarks', nargs='+', default=list(ENV_STEPS), choices=list(ENV_STEPS))
    p.add_argument('--out', default=OUT)
    args = p.parse_args()
    result = dict(benchmark='async_classic', date=datetime.now(timezone.utc).isoformat(), seed=args.seed,
                  rounds=args.rounds, machine=dict(cores=len(os.sched_getaffinity(0)), python=platform.python_version()),
                  benchmarks={})
    for bench in args.benchmarks:
        runs = {'sync': [], 'async': []}
        with CpuTimes() as cpu:  # the machine's busy/idle/steal over the runs: it must be otherwise idle
            for r in range(args.rounds):
                for mode in ('sync', 'async'):
                    run = one_run(bench, args.seed, ENV_STEPS[bench], mode == 'async')
                    runs[mode].append(run)
                    print(f'{bench} round {r} {mode}: {run}', flush=True)
        med = {m: statistics.median(x['wall_s'] for x in rs) for m, rs in runs.items()}
        result['benchmarks'][bench] = dict(
            env_steps=ENV_STEPS[bench], cpu=cpu.fractions, runs=runs, median_wall_s=med,
            async_over_sync=round(med['async'] / med['sync'], 3))
        print(bench, result['benchmarks'][bench]['async_over_sync'], flush=True)
    atomic_write_json(args.out, result)
    print(json.dumps({b: v['async_over_sync'] for b, v in result['benchmarks'].items()}))


if __name__ == '__main__':
    main()
