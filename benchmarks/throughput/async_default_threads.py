"""async_mode with default settings, as a new user writes it: does flipping the switch pay?

The pipeline of issue 18: DQN on 8 CartPole envs in `SubprocessEnvManagerV2` (default worker
count), each env step sleeping 2 ms (a simulator that leaves the CPU), `n_sample=64`,
`update_per_collect=64`, `batch_size=128`, so that collection and training cost about the
same. torch threads are left at torch's default; the only change between runs is
`task.start(async_mode=...)`. `async` overlaps the stages with torch's threads shared among
the steps in flight; `async_old_threads` passes torch's default thread count explicitly
(`torch_threads=N`), which is what async mode did before it budgeted threads per stage.
Settings alternate within each round; medians are reported.

    python benchmarks/throughput/async_default_threads.py [--env-steps 4000] [--rounds 3] [--cuda] [--out PATH]

`--cuda` trains on the GPU (`policy.cuda=True`: learner and collector forward there), as the
same pipeline runs on a machine with one. Writes benchmarks/results/async_default_threads.json
(or `--out`).
"""
import argparse
import copy
import datetime
import os
import statistics
import sys
import time

import gymnasium as gym
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..'))
from ding.config import compile_config  # noqa: E402
from ding.data import DequeBuffer  # noqa: E402
from ding.envs import DingEnvWrapper, SubprocessEnvManagerV2  # noqa: E402
from ding.framework import task  # noqa: E402
from ding.framework.context import OnlineRLContext  # noqa: E402
from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler,  # noqa: E402
                                       termination_checker)
from ding.model import DQN  # noqa: E402
from ding.policy import DQNPolicy  # noqa: E402
from ding.utils import set_pkg_seed  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402
from dizoo.classic_control.cartpole.config.cartpole_dqn_config import create_config, main_config  # noqa: E402

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results')
SIM_SECONDS = 0.002


class SleepyStep(gym.Wrapper):
    """CartPole whose step waits 2 ms, as a simulator running elsewhere would."""

    def step(self, action):
        time.sleep(SIM_SECONDS)
        return self.env.step(action)


def make_env():
    return DingEnvWrapper(SleepyStep(gym.make('CartPole-v1')))


def config(seed: int = 0, cuda: bool = False):
    main = copy.deepcopy(main_config)
    main.policy.cuda = cuda
    main.exp_name = '/tmp/ding_bench_async_default_threads'
    main.policy.collect.n_sample = 64
    main.policy.learn.update_per_collect = 64
    main.policy.learn.batch_size = 128
    return compile_config(main, create_cfg=copy.deepcopy(create_config), auto=True, seed=seed, save_cfg=False)


def run(setting: str, env_steps: int, default_threads: int, cuda: bool = False) -> dict:
    cfg = config(cuda=cuda)
    set_pkg_seed(cfg.seed, use_cuda=cuda)
    env = SubprocessEnvManagerV2([make_env for _ in range(8)], cfg.env.manager)
    env.seed(cfg.seed)
    env.launch()
    policy = DQNPolicy(cfg.policy, model=DQN(**cfg.policy.model))
    buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
    marks = {}

    def clock(ctx):
        marks.setdefault('start', time.perf_counter())
        marks['end'], marks['env_step'], marks['train_iter'] = time.perf_counter(), ctx.env_step, ctx.train_iter

    threads = default_threads if setting == 'async_old_threads' else None
    try:
        with task.start(async_mode=setting != 'sync', ctx=OnlineRLContext(), torch_threads=threads):
            task.use(eps_greedy_handler(cfg))
            task.use(StepCollector(cfg, policy.collect_mode, env))
            task.use(data_pusher(cfg, buffer_))
            task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
            task.use(clock)
            task.use(termination_checker(max_env_step=env_steps))
            task.run()
    finally:
        env.close()
    seconds = marks['end'] - marks['start']
    return dict(env_steps=marks['env_step'], train_iter=marks['train_iter'], seconds=seconds,
                env_steps_per_s=marks['env_step'] / seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--env-steps', type=int, default=4000)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--cuda', action='store_true', help='train on the GPU (policy.cuda=True)')
    parser.add_argument('--out', default=os.path.join(RESULTS, 'async_default_threads.json'))
    args = parser.parse_args()
    if args.cuda and not torch.cuda.is_available():
        raise SystemExit('--cuda: torch sees no CUDA device here')
    default_threads = torch.get_num_threads()
    settings = ('sync', 'async', 'async_old_threads')
    runs = {s: [] for s in settings}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    for round_ in range(args.rounds):
        for s in settings:
            runs[s].append(run(s, args.env_steps, default_threads, args.cuda))
            assert torch.get_num_threads() == default_threads, 'async mode must restore the thread count'
            print(s, runs[s][-1], flush=True)
            # after every run, so that a run cut short (a time limit) keeps what it measured
            out = summary(runs, args, default_threads, complete=round_ == args.rounds - 1 and s == settings[-1])
            atomic_write_json(args.out, out)
    median = out['env_steps_per_s']
    print(f"sync {median['sync']:,.0f} env steps/s; async {median['async']:,.0f} = "
          f"{out['async_vs_sync']:.2f}x; async with torch's {default_threads} threads "
          f"{median['async_old_threads']:,.0f} = {out['old_async_vs_sync']:.2f}x")


def summary(runs: dict, args: argparse.Namespace, default_threads: int, complete: bool) -> dict:
    """Medians over the runs so far of each setting, and their ratios to sync."""
    median = {s: statistics.median(r['env_steps_per_s'] for r in rs) for s, rs in runs.items() if rs}
    ratio = lambda s: median[s] / median['sync'] if s in median else None  # noqa: E731
    return dict(benchmark='async_default_threads', date=datetime.datetime.now(datetime.timezone.utc).isoformat(),
                complete=complete,
                env='CartPole-v1 + 2 ms sleep per step, x8, SubprocessEnvManagerV2 (default workers)',
                n_sample=64, update_per_collect=64, batch_size=128, torch_default_threads=default_threads,
                cores=len(os.sched_getaffinity(0)), device=torch.cuda.get_device_name() if args.cuda else 'cpu',
                env_steps_per_s=median, async_vs_sync=ratio('async'),
                old_async_vs_sync=ratio('async_old_threads'), runs=runs)


if __name__ == '__main__':
    main()
