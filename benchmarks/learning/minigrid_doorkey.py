"""MiniGrid DoorKey-5x5 to its stop value (0.9 eval return): the dizoo/minigrid configs run
through `ding train`'s pipeline, seed by seed, until the stop value or an env-step budget.

The JSON holds each run's evaluation curve (env_step, eval return mean), the env steps and
wall seconds to the stop value, and the machine's CPU busy / steal fractions over the run (a
shared 2-core VM: wall-clock figures vary with its load; env-step figures do not).

    python benchmarks/learning/minigrid_doorkey.py --budget 300000 --seeds 0 --out benchmarks/results/minigrid_doorkey.json
"""
import argparse
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
from r2d2_pomdp import eval_curve  # noqa: E402

CONFIG_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..', 'dizoo', 'minigrid', 'config')
CONFIGS = {'onppo': 'minigrid_doorkey5x5_onppo_config.py', 'dqn': 'minigrid_doorkey5x5_dqn_config.py',
           'image_dqn': 'minigrid_doorkey5x5_image_dqn_config.py'}


def run_config(name: str, seed: int, budget: int, root: str) -> dict:
    main, create, info = resolve_config(None, None, os.path.join(CONFIG_DIR, CONFIGS[name]))
    run_dir = os.path.join(root, f'{name}_seed{seed}')
    start = time.time()
    with CpuTimes() as load:
        _, ctx = start_run(main, create, info, seed, RunOptions(max_env_step=budget, progress=False,
                                                                checkpoint_freq=10 ** 9), exp_name=run_dir)
    wall = time.time() - start
    curve = eval_curve(run_dir)
    stop = float(main.env.stop_value)
    solved_at = next((step for step, ret in curve if ret >= stop), None)
    return dict(config=CONFIGS[name], seed=seed, env_step=int(ctx.env_step), train_iter=int(ctx.train_iter),
                stop_value=stop, solved=solved_at is not None, env_step_to_stop=solved_at,
                wall_s=round(wall, 1), final_eval_return=curve[-1][1] if curve else None,
                best_eval_return=max(r for _, r in curve) if curve else None, cpu=load.fractions, curve=curve)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--budget', type=int, default=300000, help='env steps per run')
    parser.add_argument('--seeds', type=int, nargs='+', default=[0])
    parser.add_argument('--configs', nargs='+', default=['onppo'], choices=list(CONFIGS))
    parser.add_argument('--out', default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results',
                                                      'minigrid_doorkey.json'))
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as root:
        for seed in args.seeds:
            for name in args.configs:
                runs.append(run_config(name, seed, args.budget, root))
                print({k: v for k, v in runs[-1].items() if k != 'curve'}, flush=True)
    atomic_write_json(args.out, dict(benchmark='minigrid_doorkey', env='MiniGrid-DoorKey-5x5-v0',
                                     budget_env_steps=args.budget, runs=runs,
                                     note='each run stops at the config stop_value or the budget; the machine is a '
                                          'shared 2-core VM, so wall_s depends on its load (cpu: busy/steal '
                                          'fractions over each run)'))
    print('wrote', args.out)


if __name__ == '__main__':
    main()
