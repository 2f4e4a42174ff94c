"""async_mode against sync where overlap has little to hide: the classic benchmarks' own pipelines.

Issue 35 asks that a pipeline where overlap cannot pay is not slower in async mode than in sync.
This runs the comparison's DQN CartPole-v1 and SAC Pendulum-v1 pipelines (dizoo configs, envs
in this process, a CPU learner) for a fixed number of env steps, each through the comparison's
own runner (benchmarks/compare/runners/ours_runner.py, one process per run, one torch thread),
sync and async alternating within each round. Nothing sleeps: the envs are the gymnasium ones.

With `--managers base subprocess` each pipeline also runs with its envs in the subprocess
manager (rows `<benchmark>_subprocess`). Async mode overlaps steps only where some stage waits
outside the GIL (ding/framework/async_pipeline.py, why_sync): with envs in this process and a
CPU learner its steps run one after another, as in sync mode; with envs in worker processes the
collector waits on them, and the steps overlap.

Reported per benchmark: the median wall seconds of each mode and async / sync of the medians
(above 1: async is slower), with each run's evaluation seconds. The evaluation (every 1,000 env
steps, one observation at a time) is a stage of the pipeline like any other, so in async mode it
overlaps training and its wall seconds cannot be subtracted from the run's; and its cost depends
on the episode lengths the policy reaches, which differ between runs. The seed is a tuning seed:
this measures time per env step, not learning.

Then where the time goes (`two_stage_split`): a two-stage pipeline in this process, a
collector-like stage (3 forwards of a small MLP on one observation, then a pure-Python loop
standing for an env step) and a learner-like one (3 Adam updates of a 128-wide MLP on 128 rows),
timed inside each stage in sync and in async mode. Overlap could hide at most the collector's
time; what async adds to each stage is the cost of the two threads handing the GIL to each
other (every torch op releases it). Two such learners in two processes side by side are timed
too (`learner_alone_us`, `learner_beside_another_process_us`): the cores themselves do not slow
each other down.

    python benchmarks/throughput/async_classic.py [--rounds 3] [--seed 7] [--managers base subprocess] [--out PATH]

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
import time
from datetime import datetime, timezone

import torch

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BENCH)
from machine_load import CpuTimes  # noqa: E402

sys.path.insert(0, os.path.join(BENCH, 'compare'))
from aggregate import read_log  # noqa: E402  the comparison's reader of runner logs

from ding.framework import task  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402

RUNNER = os.path.join(BENCH, 'compare', 'runners', 'ours_runner.py')
OUT = os.path.join(BENCH, 'results', 'async_classic.json')
# benchmark name in the comparison -> env steps per run (a few seconds to half a minute each)
ENV_STEPS = {'dqn_cartpole_v1': 6000, 'sac_pendulum': 4000}


def one_run(bench: str, seed: int, env_steps: int, async_mode: bool, manager: str = 'base') -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'log.jsonl')
        cmd = [sys.executable, RUNNER, '--benchmark', bench, '--seed', str(seed), '--out', log, '--max-env-steps',
               str(env_steps), '--torch-threads', '1', '--whole-budget'] + (['--async-mode'] if async_mode else [])
        if manager != 'base':  # the collector's envs (the evaluator's stay in this process)
            cmd += ['--override', json.dumps({'env': {'manager': {'type': manager}}})]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = read_log(log)['end']
    return dict(env_steps=end['env_steps'], wall_s=end['wall_s'], eval_s=end['eval_s'],
                best_return=end.get('best_return'))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _mlp() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(4, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128),
                               torch.nn.ReLU(), torch.nn.Linear(128, 2))


def _learner_step():
    """3 Adam updates of a 128-wide MLP on 128 rows: the learner-like stage."""
    net = _mlp()
    opt = torch.optim.Adam(net.parameters(), fused=True)

    def step(ctx=None):
        for _ in range(3):
            loss = net(torch.randn(128, 4)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    return step


def _time_learner(steps: int = 1500) -> float:
    torch.set_num_threads(1)
    step = _learner_step()
    for _ in range(100):
        step()
    begin = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - begin) / steps * 1e6


def two_stage_split(steps: int = 1500) -> dict:
    torch.set_num_threads(1)
    actor, learn = _mlp(), _learner_step()
    spent = {'collect': 0.0, 'learn': 0.0}

    def collect(ctx):
        begin = time.perf_counter()
        with torch.no_grad():
            for _ in range(3):
                actor(torch.randn(1, 4))
        x = 0
        for _ in range(500):  # Python work, as an env step and the collector's bookkeeping are
            x += 1
        spent['collect'] += time.perf_counter() - begin

    def learner(ctx):
        begin = time.perf_counter()
        learn()
        spent['learn'] += time.perf_counter() - begin

    out = {'date': _now()}
    for mode in ('sync', 'async', 'sync', 'async'):
        spent.update(collect=0.0, learn=0.0)
        with task.start(async_mode=mode == 'async', torch_threads=1 if mode == 'async' else None):
            task.use(collect)
            task.use(learner)
            begin = time.perf_counter()
            task.run(max_step=steps)
            wall = time.perf_counter() - begin
        out.setdefault(mode, []).append({'us_per_step': round(wall / steps * 1e6), 'collect_us': round(
            spent['collect'] / steps * 1e6), 'learn_us': round(spent['learn'] / steps * 1e6)})
    alone = _time_learner()
    other = subprocess.Popen([sys.executable, __file__, '--learner-beside'], stdout=subprocess.PIPE, text=True)
    other.stdout.readline()  # warmed up and timing: now both processes burn a core
    beside = _time_learner()
    other.wait()
    out['learner_alone_us'], out['learner_beside_another_process_us'] = round(alone), round(beside)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--seed', type=int, default=7)
    p.add_argument('--benchmarks', nargs='+', default=list(ENV_STEPS), choices=list(ENV_STEPS))
    p.add_argument('--managers', nargs='+', default=['base'], choices=['base', 'subprocess'],
                   help="the collector's env manager; a row per benchmark and manager")
    p.add_argument('--out', default=OUT)
    p.add_argument('--part', nargs='+', default=['pipelines', 'split'], choices=['pipelines', 'split'],
                   help='a part left out keeps its figures from the results file')
    p.add_argument('--learner-beside', action='store_true', help=argparse.SUPPRESS)  # the split's second process
    args = p.parse_args()
    if args.learner_beside:
        _time_learner(100)
        print('timing', flush=True)
        _time_learner(3000)
        return
    result = dict(benchmark='async_classic', benchmarks={})
    if os.path.exists(args.out):
        with open(args.out) as f:
            result = json.load(f)
    result['machine'] = dict(cores=len(os.sched_getaffinity(0)), python=platform.python_version())
    if 'pipelines' in args.part:
        result.update(seed=args.seed, rounds=args.rounds)
    rows = [(b, m) for b in args.benchmarks for m in args.managers] if 'pipelines' in args.part else []
    for bench, manager in rows:
        name = bench if manager == 'base' else f'{bench}_{manager}'
        runs = {'sync': [], 'async': []}
        with CpuTimes() as cpu:  # the machine's busy/idle/steal over the runs: it must be otherwise idle
            for r in range(args.rounds):
                for mode in ('sync', 'async'):
                    run = one_run(bench, args.seed, ENV_STEPS[bench], mode == 'async', manager)
                    runs[mode].append(run)
                    print(f'{name} round {r} {mode}: {run}', flush=True)
        med = {m: statistics.median(x['wall_s'] for x in rs) for m, rs in runs.items()}
        result['benchmarks'][name] = dict(
            date=_now(), env_steps=ENV_STEPS[bench], env_manager=manager, cpu=cpu.fractions, runs=runs,
            median_wall_s=med, async_over_sync=round(med['async'] / med['sync'], 3))
        print(name, result['benchmarks'][name]['async_over_sync'], flush=True)
    if 'split' in args.part:
        with CpuTimes() as cpu:
            result['two_stage_split'] = two_stage_split()
        result['two_stage_split']['cpu'] = cpu.fractions
        print(result['two_stage_split'], flush=True)
    atomic_write_json(args.out, result)
    print(json.dumps({b: v['async_over_sync'] for b, v in result['benchmarks'].items()}))


if __name__ == '__main__':
    main()
