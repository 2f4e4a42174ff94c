"""Sync against async_mode's schedules on one pipeline, to a fixed number of env steps, paired.

The comparison benchmarks time runs to a threshold, so a run whose trajectory parts after an
overlap probe (a different number of env steps to the threshold) moves their medians more than
the schedule does. This times the same work instead: a pipeline of
`benchmarks/compare/runners/ours_runner.py` (`--algo`: dizoo's `pendulum_sac_config` by default,
or the CartPole DQN or PPO config; one torch thread, no evaluator) to `--env-steps`, as sync and as
async with each `--schedules` in turn, round after round with the seed of the round, the order of
the settings rotating from round to round;
reported: each setting's seconds, and per round its ratio to sync (the median of those ratios is
the figure, with a distribution-free 95% interval). The same for the process's CPU seconds, which
the machine's other load moves less than wall time: what each schedule costs in work.

    python benchmarks/async_schedule_ab.py [--algo sac] [--env-steps 2000] [--rounds 10] [--schedules inline auto]

Writes benchmarks/results/async_schedule_ab.json after every round.
"""
import argparse
import datetime
import json
import math
import os
import statistics
import sys
import tempfile
import time

import torch

from ding.framework.overlap_schedule import SCHEDULES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, 'benchmarks', 'compare', 'runners'))
RESULTS = os.path.join(ROOT, 'benchmarks', 'results', 'async_schedule_ab.json')
SETTINGS = ['sync', *SCHEDULES]  # sync, or async_mode with one of its schedules
ENV_IDS = {'sac': 'Pendulum-v1', 'dqn': 'CartPole-v1', 'ppo': 'CartPole-v1'}  # the comparison's envs


def run(setting: str, env_steps: int, seed: int, algo: str = 'sac') -> dict:
    """One run of the pipeline; `setting` is 'sync' or an async schedule."""
    import ding.model
    import ding.policy
    import ours_runner
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import termination_checker
    from ding.utils import set_pkg_seed
    config, model, policy_name, kind = ours_runner.OURS[algo]
    cfg = ours_runner.load_config(config, ENV_IDS[algo], seed, tempfile.mkdtemp(prefix='ding_ab_'))
    set_pkg_seed(cfg.seed, use_cuda=False)
    env = ours_runner.make_collector_env(cfg)
    policy = getattr(ding.policy, policy_name)(cfg.policy, model=getattr(ding.model, model)(**cfg.policy.model))
    schedule = {} if setting == 'sync' else {'async_schedule': setting}
    start, start_cpu = time.perf_counter(), time.process_time()
    try:
        with task.start(async_mode=setting != 'sync', ctx=OnlineRLContext(), **schedule):
            # first, where the comparison's evaluator stands: the pipeline ends with its learner
            task.use(termination_checker(max_env_step=env_steps))
            for middleware in ours_runner.PIPELINES[kind](cfg, policy, env):
                task.use(middleware)
            task.run()
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - start_cpu
    finally:
        env.close()
    return dict(seconds=round(seconds, 4), cpu_seconds=round(cpu_seconds, 4), schedule=task.async_schedule_summary)


def median_interval(values: list, level: float = 0.95) -> list:
    """A distribution-free interval for the median: the order statistics whose ranks a
    Binomial(n, 1/2) puts outside with at most (1 - level) / 2 on each side; [] when n is too
    small for the level (n < 6 at 95%)."""
    n, xs = len(values), sorted(values)
    below, k = 0.0, 0
    while below + math.comb(n, k) / 2**n <= (1 - level) / 2:
        below += math.comb(n, k) / 2**n
        k += 1
    return [] if k == 0 else [xs[k - 1], xs[n - k]]


def paired_ratios(runs: dict, schedules: list, key: str) -> dict:
    """Per schedule: the median over rounds of its `key` over sync's, and the interval."""
    out = {}
    for s in schedules:
        ratios = [r[key] / base[key] for r, base in zip(runs[s], runs['sync'])]
        out[s] = dict(median=round(statistics.median(ratios), 4),
                      interval_95=[round(x, 4) for x in median_interval(ratios)])
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--algo', default='sac', choices=sorted(ENV_IDS))
    p.add_argument('--env-steps', type=int, default=2000)
    p.add_argument('--rounds', type=int, default=10)
    p.add_argument('--schedules', nargs='+', default=['inline', 'auto'], choices=['inline', 'auto', 'overlap'])
    p.add_argument('--out', default=RESULTS)
    p.add_argument('--one', choices=SETTINGS,
                   help='run this setting once with --seed and print its result as JSON (e.g. under valgrind)')
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args()
    torch.set_num_threads(1)
    if args.one:
        print(json.dumps(run(args.one, args.env_steps, args.seed, args.algo)), flush=True)
        return
    import ours_runner
    from ding.utils.fileio import atomic_write_json
    settings = ['sync'] + args.schedules
    runs = {s: [] for s in settings}
    for round_ in range(args.rounds):
        shift = round_ % len(settings)  # no setting always runs first in its round
        for s in settings[shift:] + settings[:shift]:
            runs[s].append(run(s, args.env_steps, seed=round_, algo=args.algo))
            print(round_, s, runs[s][-1], flush=True)
        ratios = paired_ratios(runs, args.schedules, 'seconds')
        cpu_ratios = paired_ratios(runs, args.schedules, 'cpu_seconds')
        atomic_write_json(args.out, dict(
            benchmark='async_schedule_ab', date=datetime.datetime.now(datetime.timezone.utc).isoformat(),
            algo=args.algo, config=ours_runner.OURS[args.algo][0], env_steps=args.env_steps,
            rounds_done=round_ + 1, torch_threads=1,
            median_seconds={s: statistics.median(r['seconds'] for r in rs) for s, rs in runs.items()},
            median_ratio_to_sync={s: r['median'] for s, r in ratios.items()}, ratio_to_sync=ratios,
            cpu_ratio_to_sync=cpu_ratios, runs=runs))
    for s in args.schedules:
        print(f'{s} / sync: wall {ratios[s]}, cpu {cpu_ratios[s]}')


if __name__ == '__main__':
    main()
