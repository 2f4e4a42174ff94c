"""Does `async_mode` learn less per env step than sync? DQN on CartPole-v1 under the comparison
protocol (benchmarks/compare: our runner, the dizoo config, 10 greedy episodes every 1,000 env
steps), sync and async alternating seed by seed, each run to the whole env-step budget (no
threshold stop), on held-out seeds.

Why: on the published table async took 3.99x sync's time to reach 475 (12.0k env steps against
4.1k) at the same wall time per env step. A run's first crossing of 475 is one draw of a noisy
curve, and async's first evaluation comes a collect call later than sync's (its evaluator runs
while the previous step trains), so the curves themselves are compared: the mean evaluation
return at each evaluation point over the seeds, and the per-seed mean over the run, paired.

    python benchmarks/learning/async_learning_curve.py [--seeds 1000 ... 1011] [--env-steps 10000]
Writes benchmarks/results/async_learning_curve.json (about 6 minutes for 12 seeds on one core).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from typing import Dict, List, Optional

BENCHMARKS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(BENCHMARKS, 'compare', 'runners', 'ours_runner.py')
sys.path.insert(0, os.path.join(BENCHMARKS, 'compare'))
from seed_guard import check_reporting_seeds  # noqa: E402

from ding.utils.fileio import atomic_write_json  # noqa: E402


def curve(seed: int, env_steps: int, async_mode: bool, out_dir: str) -> Dict[int, float]:
    """{env steps at the evaluation: mean return of its 10 episodes} of one run."""
    out = os.path.join(out_dir, f'{"async" if async_mode else "sync"}_{seed}.jsonl')
    cmd = [sys.executable, RUNNER, '--benchmark', 'dqn_cartpole_v1', '--seed', str(seed), '--out', out,
           '--max-env-steps', str(env_steps), '--whole-budget'] + (['--async-mode'] if async_mode else [])
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=os.path.dirname(BENCHMARKS))
    with open(out) as f:
        rows = [json.loads(line) for line in f]
    return {r['env_steps']: r['mean_return'] for r in rows if r.get('event') == 'eval'}


def main() -> None:
    parser = argparse.ArgumentParser(description='sync vs async_mode learning curves, DQN CartPole-v1')
    parser.add_argument('--seeds', type=int, nargs='+', default=list(range(1000, 1012)))
    parser.add_argument('--env-steps', type=int, default=10000)
    parser.add_argument('--out', default=os.path.join(BENCHMARKS, 'results', 'async_learning_curve.json'))
    args = parser.parse_args()
    check_reporting_seeds(args.seeds)  # held out: no sweep may have seen them
    curves: Dict[str, List[Dict[int, float]]] = {'sync': [], 'async': []}
    with tempfile.TemporaryDirectory(prefix='async_curve_') as tmp:
        for seed in args.seeds:
            for mode in ('sync', 'async'):
                curves[mode].append(curve(seed, args.env_steps, mode == 'async', tmp))
    # evaluation points: every 1,000 env steps; a run's evaluation falls at the first step past each
    points = list(range(1000, args.env_steps + 1, 1000))

    def mean_at(runs: List[Dict[int, float]], point: int) -> Optional[float]:
        """Mean over the runs of their evaluation in [point, point + 1000) (the protocol makes at
        most one there); None if none has one."""
        found = [v for c in runs for k, v in c.items() if point <= k < point + 1000]
        return statistics.mean(found) if found else None

    def run_mean(c: Dict[int, float]) -> float:  # over the evaluations from 2,000 env steps on (both have them)
        return statistics.mean(v for k, v in c.items() if k >= 2000)

    per_seed = {m: [run_mean(c) for c in curves[m]] for m in curves}
    diffs = [s - a for s, a in zip(per_seed['sync'], per_seed['async'])]
    result = {
        'benchmark': 'async_learning_curve', 'date': datetime.now(timezone.utc).isoformat(timespec='seconds'),
        'setting': f'benchmarks/compare ours_runner, dqn_cartpole_v1 (dizoo cartpole_dqn_v1_config), '
                   f'--whole-budget --max-env-steps {args.env_steps}, one torch thread, sync then async per seed',
        'seeds': args.seeds,
        'mean_return_at': {m: {p: mean_at(curves[m], p) for p in points} for m in curves},
        'per_seed_mean_return_from_2000': per_seed,
        'paired_sync_minus_async': {'mean': statistics.mean(diffs), 'stdev': statistics.stdev(diffs),
                                    'standard_error': statistics.stdev(diffs) / len(diffs) ** 0.5},
        'curves': {m: [{str(k): v for k, v in c.items()} for c in curves[m]] for m in curves},
    }
    atomic_write_json(args.out, result)
    print(json.dumps({k: result[k] for k in ('mean_return_at', 'paired_sync_minus_async')}, indent=1))


if __name__ == '__main__':
    main()
