"""Time to threshold for SAC (and TD3 / DDPG) on Pendulum-v1 (bars.md: eval mean >= -250 within
20k env steps on seeds 0, 1, 2; SAC target: median <= 20 s). Reports -200 too.

The run is `dizoo/classic_control/pendulum/entry/pendulum_offpolicy.train` (the spec's
continuous pipeline with the dizoo config): 10 greedy evaluation episodes every 1,000
updates (= every 1,000 env steps after the 1,000-step random warm-up, one update per env
step); wall time counts everything, evaluations included, from just before training starts.

    python benchmarks/learning/sac_pendulum.py [--algo sac] [--seeds 0 1 2] [--max-env-step 20000]
Writes benchmarks/results/<algo>_pendulum.json.
"""
import argparse
import json
import logging
import os
import statistics
import tempfile

from ding.utils.fileio import atomic_write_json
from dizoo.classic_control.pendulum.entry.pendulum_offpolicy import first_reaching, train

THRESHOLDS = (-250.0, -200.0)


def run_seed(algo: str, seed: int, max_env_step: int) -> dict:
    history = train(algo, seed, max_env_step, stop_value=max(THRESHOLDS),  # run on to the stricter -200
                    exp_name=tempfile.mkdtemp(prefix=f'{algo}_pendulum_'), save_cfg=False)
    result = {'seed': seed, 'history': history}
    for threshold in THRESHOLDS:
        hit = first_reaching(history, threshold)
        result[str(threshold)] = None if hit is None else {k: hit[k] for k in ('env_step', 'train_iter', 'wall_s')}
    return result


def summarize(runs: list) -> dict:
    summary = {}
    for threshold in map(str, THRESHOLDS):
        hits = [r[threshold] for r in runs]
        reached = [h for h in hits if h is not None]
        summary[threshold] = {
            'all_seeds_reached': len(reached) == len(hits),
            'median_wall_s': statistics.median(h['wall_s'] for h in reached) if reached else None,
            'median_env_step': statistics.median(h['env_step'] for h in reached) if reached else None,
        }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--algo', choices=('sac', 'td3', 'ddpg'), default='sac')
    parser.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2])
    parser.add_argument('--max-env-step', type=int, default=20000)
    parser.add_argument('--out', default=None)
    args = parser.parse_args()
    logging.disable(logging.INFO)
    runs = [run_seed(args.algo, seed, args.max_env_step) for seed in args.seeds]
    report = {'benchmark': f'{args.algo}_pendulum', 'thresholds': THRESHOLDS, 'summary': summarize(runs),
              'runs': runs, 'target_median_wall_s': 20.0 if args.algo == 'sac' else None}
    out = args.out or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results', f'{args.algo}_pendulum.json')
    os.makedirs(os.path.dirname(out), exist_ok=True)
    atomic_write_json(out, report)
    print(json.dumps(report['summary'], indent=1))


if __name__ == '__main__':
    main()
