"""The acceptance run of `ding tune` (issue 17): a 20-trial study of DQN on CartPole-v1 with two
parallel workers, then the best config against the shipped one on time to 475 over 3 seeds.

    python benchmarks/learning/tune_dqn_cartpole.py [--work-dir DIR] [--trials 20] [--parallel 2] [--seeds 0 1 2]

In DIR (default ./tune_acceptance): the study (`ding tune --algo dqn --env CartPole-v1 --trials N
--parallel K`, resumed if it is there) and one `ding train` run per (config, seed), each reused
when its result.json is there. Time to 475: the env steps and seconds (from just before training,
`result.json`'s time_s) at the first evaluation (10 greedy episodes every 1,024 env steps) whose
mean return reaches 475. Writes benchmarks/results/tune_dqn_cartpole.json, with `tuning_seeds`:
the study's seeds and the comparison's, which the comparison harness then refuses to report on
(benchmarks/compare/seed_guard.py).
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from ding.utils.fileio import atomic_write_json  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results', 'tune_dqn_cartpole.json')
THRESHOLD = 475.0
STUDY = 'tune_dqn_cartpole-v1'
STUDY_SEEDS = 1  # passed to `ding tune --seeds`: each trial trains seeds 0..STUDY_SEEDS-1


def ding(*args: str, cwd: str) -> None:
    subprocess.run([sys.executable, '-m', 'ding.entry.cli', *args], cwd=cwd, check=True)


def first_reach(run_dir: str) -> Dict[str, Any]:
    """The first evaluation at or over the threshold (None fields when none reached it)."""
    with open(os.path.join(run_dir, 'result.json')) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    hit = next((r for r in rows if r.get('eval_return_mean') is not None and r['eval_return_mean'] >= THRESHOLD), None)
    return {'env_steps': None if hit is None else hit['env_step'], 'time_s': None if hit is None else hit['time_s'],
            'best_eval': max((r['eval_return_mean'] for r in rows if r.get('eval_return_mean') is not None),
                             default=None), 'last_env_step': rows[-1]['env_step'] if rows else 0}


def train(work: str, name: str, seed: int, config_args: List[str]) -> Dict[str, Any]:
    run_dir = os.path.join(work, f'{name}_seed{seed}')
    if not os.path.isfile(os.path.join(run_dir, 'final_ctx.json')):
        ding('train', *config_args, '--seed', str(seed), '--exp-name', run_dir, '--no-progress', cwd=work)
    return dict(seed=seed, **first_reach(run_dir))


def median(values: List[Optional[float]]) -> Optional[float]:
    return statistics.median(values) if values and all(v is not None for v in values) else None


def study_summary(study_dir: str) -> Dict[str, Any]:
    with open(os.path.join(study_dir, 'trials.csv')) as f:
        trials = list(csv.DictReader(f))
    states = [t['state'] for t in trials]
    return {'trials': len(trials), 'complete': states.count('COMPLETE'), 'pruned': states.count('PRUNED'),
            'failed': states.count('FAIL'),
            'study_wall_s_sum_of_trials': round(sum(float(t['duration_s'] or 0) for t in trials), 1),
            'rows': trials}


def best_overrides(path: str) -> Dict[str, Any]:
    import yaml
    with open(path) as f:
        return yaml.safe_load(f)['overrides']


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--work-dir', default='tune_acceptance')
    parser.add_argument('--trials', type=int, default=20)
    parser.add_argument('--parallel', type=int, default=2)
    parser.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2])
    args = parser.parse_args()
    work = os.path.abspath(args.work_dir)
    os.makedirs(work, exist_ok=True)
    ding('tune', '--algo', 'dqn', '--env', 'CartPole-v1', '--trials', str(args.trials), '--parallel',
         str(args.parallel), '--seeds', str(STUDY_SEEDS), cwd=work)  # runs only the trials still missing
    best_yaml = os.path.join(work, STUDY, 'best.yaml')
    arms = {'shipped': ['--algo', 'dqn', '--env', 'CartPole-v1'], 'tuned': ['-f', best_yaml]}
    runs = {name: [train(work, name, seed, config) for seed in args.seeds] for name, config in arms.items()}
    summary = {name: {'reached': sum(r['env_steps'] is not None for r in rs), 'seeds': len(rs),
                      'median_env_steps': median([r['env_steps'] for r in rs]),
                      'median_time_s': median([r['time_s'] for r in rs])} for name, rs in runs.items()}
    with open(os.path.join(work, STUDY, 'study.json')) as f:
        study = json.load(f)
    result = {
        'benchmark': 'tune_dqn_cartpole', 'date': datetime.now(timezone.utc).isoformat(),
        'command': (f'ding tune --algo dqn --env CartPole-v1 --trials {args.trials} --parallel {args.parallel} '
                    f'--seeds {STUDY_SEEDS}'),
        'threshold': THRESHOLD, 'objective': study.get('objective'),
        'study': study_summary(os.path.join(work, STUDY)),
        'best_overrides': best_overrides(best_yaml), 'summary': summary, 'runs': runs,
        'tuning_seeds': sorted(set(range(STUDY_SEEDS)) | set(args.seeds)),
        'note': 'shared 2-core machine, niced, other jobs running: wall seconds are noisy, compare env steps',
    }
    atomic_write_json(OUT, result)
    print(json.dumps(summary, indent=1))


if __name__ == '__main__':
    main()
