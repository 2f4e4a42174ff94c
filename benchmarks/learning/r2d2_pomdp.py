"""R2D2 vs DQN on the POMDP CartPole-v0 (velocities masked), one env-step budget for both.

Each arm runs its dizoo config (`cartpole_pomdp_r2d2_config`, `cartpole_pomdp_dqn_config`)
through `ding train`'s pipeline, seed by seed, until the budget or the stop value (195).
The JSON holds each run's evaluation curve (env_step, eval return mean) and its final and
best figures, with the machine's CPU busy / steal fractions over the run: this 2-core VM is
shared, so wall-clock figures vary with its load; env-step figures do not.

    python benchmarks/learning/r2d2_pomdp.py --budget 40000 --seeds 0 --out benchmarks/results/r2d2_pomdp.json
"""
import argparse
import csv
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..'))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from ding.entry.pipeline import RunOptions  # noqa: E402
from ding.entry.train import resolve_config, start_run  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402
from machine_load import CpuTimes  # noqa: E402

CONFIG_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..', 'dizoo', 'classic_control', 'cartpole',
                          'config')
ARMS = {'r2d2': 'cartpole_pomdp_r2d2_config.py', 'dqn': 'cartpole_pomdp_dqn_config.py'}


def eval_curve(run_dir: str):
    """[(env_step, eval return mean)] from the run's progress.csv."""
    curve = []
    with open(os.path.join(run_dir, 'progress.csv')) as f:
        for row in csv.DictReader(f):
            if row.get('eval_return_mean') not in (None, ''):
                curve.append((int(row['env_step']), round(float(row['eval_return_mean']), 2)))
    return curve


def run_arm(arm: str, seed: int, budget: int, root: str) -> dict:
    main, create, info = resolve_config(None, None, os.path.join(CONFIG_DIR, ARMS[arm]))
    run_dir = os.path.join(root, f'{arm}_seed{seed}')
    start = time.time()
    with CpuTimes() as load:
        _, ctx = start_run(main, create, info, seed, RunOptions(max_env_step=budget, progress=False,
                                                                checkpoint_freq=10 ** 9), exp_name=run_dir)
    curve = eval_curve(run_dir)
    return dict(arm=arm, seed=seed, env_step=int(ctx.env_step), train_iter=int(ctx.train_iter),
                final_eval_return=curve[-1][1] if curve else None,
                best_eval_return=max(r for _, r in curve) if curve else None,
                reached_195=bool(curve and max(r for _, r in curve) >= 195),
                wall_s=round(time.time() - start, 1), cpu=load.fractions, curve=curve)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--budget', type=int, default=40000, help='env steps per run (both arms)')
    parser.add_argument('--seeds', type=int, nargs='+', default=[0])
    parser.add_argument('--arms', nargs='+', default=list(ARMS), choices=list(ARMS))
    parser.add_argument('--out', default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results',
                                                      'r2d2_pomdp.json'))
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as root:
        for seed in args.seeds:
            for arm in args.arms:
                runs.append(run_arm(arm, seed, args.budget, root))
                print({k: v for k, v in runs[-1].items() if k != 'curve'}, flush=True)
    atomic_write_json(args.out, dict(benchmark='r2d2_pomdp', env='cartpole_pomdp (CartPole-v0, velocities masked)',
                                     budget_env_steps=args.budget, stop_value=195, runs=runs,
                                     note='one budget for both arms; the machine is a shared 2-core VM, so wall_s '
                                          'depends on its load (cpu: busy/steal fractions over each run)'))
    print('wrote', args.out)


if __name__ == '__main__':
    main()
