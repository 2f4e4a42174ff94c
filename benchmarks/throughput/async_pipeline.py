"""End-to-end env steps/s of the DQN pipeline on the slow CartPole (~0.5 ms of CPU per
step, 8 envs in a subprocess manager), `async_mode=True` against `async_mode=False`.

Collection (8 envs x 8 steps) and training (`update_per_collect` updates of batch 64) must
cost about the same (the bar's premise): unless `--updates` is given, a sync calibration run
with one env worker times both stages and sets `update_per_collect` so that they match.
On 2 cores the worker count matters: in sync mode 2 env workers use both cores while the
learner waits; in async mode the learner needs a core of its own, so 1 env worker + the
learner is the balanced split (ideal 2x), while 2 workers + the learner ask for 3 cores.
The bar's reading is the same pipeline with only `async_mode` flipped (`same_workers`);
best async / best sync over worker counts is reported too. Every (mode, worker_num) pair
is run, alternating, `--rounds` times, and the median is reported, beside the share of CPU
time the hypervisor stole and the parallel speedup two processes got just before each
round (`machine_load.py`). The GIL switch interval is lowered (`--switch-interval`,
Python's default is 5 ms) so that the collector thread gets the GIL back soon after its
workers answer.

    python benchmarks/throughput/async_pipeline.py [--env-steps 3000] [--rounds 3] [--updates 0]

Writes benchmarks/results/async_pipeline.json.
"""
import argparse
import copy
import datetime
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..'))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from ding.config import compile_config  # noqa: E402
from ding.data import DequeBuffer  # noqa: E402
from ding.envs import SubprocessEnvManagerV2  # noqa: E402
from ding.framework import task  # noqa: E402
from ding.framework.context import OnlineRLContext  # noqa: E402
from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler,  # noqa: E402
                                       termination_checker)
from ding.model import DQN  # noqa: E402
from ding.policy import DQNPolicy  # noqa: E402
from ding.utils import set_pkg_seed  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402
from dizoo.classic_control.cartpole.config.cartpole_dqn_config import create_config, main_config  # noqa: E402
from dizoo.classic_control.slow_env.envs import SlowCartPoleEnv, make_slow_cartpole  # noqa: E402
from machine_load import CpuTimes, parallel_speedup  # noqa: E402

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results')


def slow_dqn_config(updates: int, seed: int = 0):
    main = copy.deepcopy(main_config)
    main.exp_name = '/tmp/ding_bench_async_pipeline'
    main.policy.collect.n_sample = 64
    main.policy.learn.update_per_collect = updates
    create = copy.deepcopy(create_config)
    create.env = dict(type='slow_cartpole', import_names=['dizoo.classic_control.slow_env.envs'])
    create.env_manager = dict(type='subprocess')
    return compile_config(main, create_cfg=create, auto=True, seed=seed, save_cfg=False)


def run_pipeline(async_mode: bool, env_steps: int, updates: int, worker_num: int, stage_seconds: dict = None) -> dict:
    """Env steps/s from the first collected step to the last (start-up excluded). With
    `stage_seconds` (a dict, sync mode only) the wall seconds of collection and training
    are added up into it."""
    cfg = slow_dqn_config(updates)
    set_pkg_seed(cfg.seed, use_cuda=False)
    env = SubprocessEnvManagerV2([lambda: SlowCartPoleEnv() for _ in range(8)],
                                 dict(cfg.env.manager, worker_num=worker_num))
    env.seed(cfg.seed)
    env.launch()
    policy = DQNPolicy(cfg.policy, model=DQN(**cfg.policy.model))
    buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
    marks = {}

    def clock(ctx):
        marks.setdefault('start', time.perf_counter())
        marks['end'], marks['env_step'], marks['train_iter'] = time.perf_counter(), ctx.env_step, ctx.train_iter

    machine = CpuTimes()
    try:
        with machine, task.start(async_mode=async_mode, ctx=OnlineRLContext()):
            task.use(eps_greedy_handler(cfg))
            collector = StepCollector(cfg, policy.collect_mode, env)
            learner = OffPolicyLearner(cfg, policy.learn_mode, buffer_)
            if stage_seconds is not None:
                collector, learner = timed(collector, 'collect', stage_seconds), timed(learner, 'train', stage_seconds)
            task.use(collector)
            task.use(data_pusher(cfg, buffer_))
            task.use(learner)
            task.use(clock)
            task.use(termination_checker(max_env_step=env_steps))
            task.run()
    finally:
        env.close()
    seconds = marks['end'] - marks['start']
    return dict(env_steps=marks['env_step'], train_iter=marks['train_iter'], seconds=seconds,
                env_steps_per_s=marks['env_step'] / seconds, cpu_stolen=machine.fractions['steal'],
                cpu_idle=machine.fractions['idle'])


def timed(middleware, key: str, seconds: dict):
    """`middleware` that adds its wall time to `seconds[key]` (calibration runs, sync only)."""

    def run(ctx):
        start = time.perf_counter()
        middleware(ctx)
        seconds[key] = seconds.get(key, 0.0) + time.perf_counter() - start

    return run


def balanced_updates(env_steps: int, first_guess: int) -> tuple:
    """`update_per_collect` at which training costs what collection costs with one env
    worker (the bar's "collection and training cost about the same"), from a sync run."""
    seconds = {}
    run_pipeline(False, env_steps, first_guess, 1, seconds)
    return max(1, round(first_guess * seconds['collect'] / seconds['train'])), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--env-steps', type=int, default=3000)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--updates', type=int, default=0, help='update_per_collect; 0: calibrate so that '
                        'training costs what collection with one env worker costs')
    parser.add_argument('--switch-interval', type=float, default=0.0005)
    args = parser.parse_args()
    torch.set_num_threads(1)
    sys.setswitchinterval(args.switch_interval)
    calibration = None
    if args.updates <= 0:
        args.updates, calibration = balanced_updates(min(args.env_steps, 1500), 16)
        print(f'calibrated update_per_collect={args.updates} from stage seconds {calibration}', flush=True)
    settings = [f'{mode}_w{w}' for mode in ('sync', 'async') for w in (2, 1)]
    runs = {s: [] for s in settings}
    speedups = []
    for _ in range(args.rounds):
        speedups.append(parallel_speedup(make_slow_cartpole))
        print(f'parallel speedup the machine offers now: {speedups[-1]:.2f}x', flush=True)
        for s in settings:
            runs[s].append(run_pipeline(s.startswith('async'), args.env_steps, args.updates, int(s[-1])))
            print(s, runs[s][-1], flush=True)
    median = {s: statistics.median(r['env_steps_per_s'] for r in runs[s]) for s in runs}
    best_sync = max((s for s in settings if s.startswith('sync')), key=median.get)
    best_async = max((s for s in settings if s.startswith('async')), key=median.get)
    out = dict(benchmark='async_pipeline', date=datetime.datetime.now(datetime.timezone.utc).isoformat(),
               env='slow_cartpole x8, subprocess manager', updates_per_collect=args.updates,
               calibration_stage_seconds=calibration,
               switch_interval=args.switch_interval, env_steps_per_s=median, best_sync=best_sync,
               best_async=best_async, async_vs_sync=median[best_async] / median[best_sync],
               same_workers={f'w{w}': median[f'async_w{w}'] / median[f'sync_w{w}'] for w in (1, 2)},
               machine_parallel_speedup=speedups,
               cpu_stolen={s: statistics.median(r['cpu_stolen'] for r in runs[s]) for s in runs}, runs=runs)
    os.makedirs(RESULTS, exist_ok=True)
    atomic_write_json(os.path.join(RESULTS, 'async_pipeline.json'), out)
    print(f"best sync ({best_sync}) {median[best_sync]:,.0f} env steps/s, best async ({best_async}) "
          f"{median[best_async]:,.0f}: {out['async_vs_sync']:.2f}x; same workers: {out['same_workers']}; "
          f"machine parallel speedup per round: {[round(x, 2) for x in speedups]}; CPU stolen: {out['cpu_stolen']}")


if __name__ == '__main__':
    main()
