"""Offline configs run against stop values taken from published results (issue 35, item 5).

    python benchmarks/learning/d4rl_stop_values.py [--configs hopper_medium_td3bc hopper_medium_cql=10000
        hopper_medium_bcq=10000] [--seeds 1000 1001 1002] [--max-train-iter 100000] [--jobs 2] [--out PATH]

Each run is `serial_pipeline_offline` on a shipped config, `dizoo/d4rl/config/<name>_config.py`,
unchanged: its stop value and evaluation frequency included. It trains on the local dataset of
the config's env id (`python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id hopper-medium-v2`),
on a held-out seed, for at most `--max-train-iter` updates (`NAME=N`: N for that config), and
ends earlier when an evaluation reaches the stop value. Runs go `--jobs` at a time, one torch
thread each.

Recorded per run: the evaluation curve (updates, mean return), the best and last evaluation,
whether the stop value was reached and at how many updates, wall seconds. Per config: the stop
value, its published source (the config's `STOP_VALUE_SOURCE`), and the dataset's transitions and
mean episode return. The published values are scores on D4RL's own datasets, which cannot be
downloaded here; the local dataset is made by our SAC, so the JSON says how its data compare.
The configs run here replace their entries in the results file; the others' stay. The runner is
stop_values.py's, which runs any shipped config against its stop value.
"""
import argparse
import os
import sys
from functools import partial
from typing import Any, Dict

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stop_values  # noqa: E402

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(BENCH, 'results', 'd4rl_stop_values.json')


def config_path(name: str) -> str:
    return f'dizoo/d4rl/config/{name}_config.py'


def dataset_summary(env_id: str) -> Dict[str, Any]:
    from ding.data.offline_dataset import d4rl_dataset_path
    from dizoo.d4rl.entry.d4rl_make_dataset import mean_episode_return
    path = d4rl_dataset_path(env_id)
    with h5py.File(path, 'r') as f:
        reward, done = f['rewards'][()], f['terminals'][()]
        truncated = f['timeouts'][()]
    return dict(path=path, transitions=int(len(reward)), mean_episode_return=round(mean_episode_return(
        reward, done, truncated), 1))


def main() -> None:
    p = stop_values.sitting_arguments(argparse.ArgumentParser(description=__doc__.split('\n\n')[0]), OUT)
    p.add_argument('--configs', nargs='+', default=['hopper_medium_td3bc', 'hopper_medium_cql=10000',
                                                    'hopper_medium_bcq=10000'],
                   help='config names, each NAME or NAME=MAX_TRAIN_ITER')
    p.add_argument('--max-train-iter', type=int, default=100000)
    args = stop_values.parse_sitting(p)
    budgets = dict((c.split('=')[0], int(c.split('=')[1]) if '=' in c else args.max_train_iter) for c in args.configs)
    entries: Dict[str, Any] = {}
    for name, budget in budgets.items():
        entry = stop_values.describe(config_path(name), budget, os.getcwd())
        env_id = stop_values.load_config(config_path(name)).main_config.env.env_id
        entries[name] = dict(entry, max_train_iter=budget, env_id=env_id,
                             dataset=dict(entry['dataset'], **dataset_summary(env_id)),
                             **(dict(note=args.note) if args.note else {}))
    jobs = {(name, seed): partial(stop_values.one_run, config_path(name), seed, budget, os.getcwd())
            for name, budget in budgets.items() for seed in args.seeds}
    stop_values.run_all(entries, jobs, args.jobs, args.out,
                        partial(stop_values.write_merged, benchmark='d4rl_stop_values'))


if __name__ == '__main__':
    main()
