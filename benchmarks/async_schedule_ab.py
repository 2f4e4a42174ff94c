"""Sync against async_mode's schedules on one pipeline, to a fixed number of env steps, paired.

The comparison benchmarks time runs to a threshold, so a run whose trajectory parts after an
overlap probe (a different number of env steps to the threshold) moves their medians more than
the schedule does. This times the same work instead: the SAC Pendulum pipeline of
`benchmarks/compare/runners/ours_runner.py` (dizoo's `pendulum_sac_config`, one torch thread, no
evaluator) to `--env-steps`, as sync and as async with each `--schedules` in turn, round after
round with the seed of the round; reported: each setting's seconds, and per round its ratio to
sync (the median of those ratios is the figure).

    python benchmarks/async_schedule_ab.py [--env-steps 2000] [--rounds 10] [--schedules inline auto]

Writes benchmarks/results/async_schedule_ab.json after every round.
"""
import argparse
import datetime
import os
import statistics
import sys
import tempfile
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, 'benchmarks', 'compare', 'runners'))
RESULTS = os.path.join(ROOT, 'benchmarks', 'results', 'async_schedule_ab.json')
CONFIG = 'dizoo.classic_control.pendulum.config.pendulum_sac_config'


def run(setting: str, env_steps: int, seed: int) -> dict:
    """One run of the pipeline; `setting` is 'sync' or an async schedule."""
    import ours_runner
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import termination_checker
    from ding.model import ContinuousQAC
    from ding.policy import SACPolicy
    from ding.utils import set_pkg_seed
    cfg = ours_runner.load_config(CONFIG, 'Pendulum-v1', seed, tempfile.mkdtemp(prefix='ding_ab_'))
    set_pkg_seed(cfg.seed, use_cuda=False)
    env = ours_runner.make_collector_env(cfg)
    policy = SACPolicy(cfg.policy, model=ContinuousQAC(**cfg.policy.model))
    schedule = {} if setting == 'sync' else {'async_schedule': setting}
    start = time.perf_counter()
    try:
        with task.start(async_mode=setting != 'sync', ctx=OnlineRLContext(), **schedule):
            for middleware in ours_runner.offpolicy_pipeline(cfg, policy, env):
                task.use(middleware)
            task.use(termination_checker(max_env_step=env_steps))
            task.run()
        seconds = time.perf_counter() - start
    finally:
        env.close()
    return dict(seconds=round(seconds, 4), schedule=task.async_schedule_summary)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--env-steps', type=int, default=2000)
    p.add_argument('--rounds', type=int, default=10)
    p.add_argument('--schedules', nargs='+', default=['inline', 'auto'], choices=['inline', 'auto', 'overlap'])
    p.add_argument('--out', default=RESULTS)
    args = p.parse_args()
    torch.set_num_threads(1)
    from ding.utils.fileio import atomic_write_json
    settings = ['sync'] + args.schedules
    runs = {s: [] for s in settings}
    for round_ in range(args.rounds):
        for s in settings:
            runs[s].append(run(s, args.env_steps, seed=round_))
            print(round_, s, runs[s][-1], flush=True)
        ratios = {s: statistics.median(r['seconds'] / base['seconds'] for r, base in zip(runs[s], runs['sync']))
                  for s in args.schedules}
        atomic_write_json(args.out, dict(
            benchmark='async_schedule_ab', date=datetime.datetime.now(datetime.timezone.utc).isoformat(),
            config=CONFIG, env_steps=args.env_steps, rounds_done=round_ + 1, torch_threads=1,
            median_seconds={s: statistics.median(r['seconds'] for r in rs) for s, rs in runs.items()},
            median_ratio_to_sync=ratios, runs=runs))
    print('median ratio to sync: ' + ', '.join(f'{s} {r:.3f}x' for s, r in ratios.items()))


if __name__ == '__main__':
    main()
