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
The configs run here replace their entries in the results file; the others' stay.
"""
import argparse
import concurrent.futures as futures
import csv
import importlib
import json
import multiprocessing
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from typing import Any, Dict, List

import h5py

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(BENCH, 'results', 'd4rl_stop_values.json')


def config_module(name: str) -> Any:
    return importlib.import_module(f'dizoo.d4rl.config.{name}_config')


def dataset_summary(env_id: str) -> Dict[str, Any]:
    from ding.data.offline_dataset import d4rl_dataset_path
    from dizoo.d4rl.entry.d4rl_make_dataset import mean_episode_return
    path = d4rl_dataset_path(env_id)
    with h5py.File(path, 'r') as f:
        reward, done = f['rewards'][()], f['terminals'][()]
        truncated = f['timeouts'][()]
    return dict(path=path, transitions=int(len(reward)), mean_episode_return=round(mean_episode_return(
        reward, done, truncated), 1))


def evaluations(run_dir: str) -> List[List[float]]:
    """[updates, mean return] at each evaluation of the run (its progress.csv)."""
    with open(os.path.join(run_dir, 'progress.csv')) as f:
        return [[int(r['train_iter']), round(float(r['eval_return_mean']), 1)] for r in csv.DictReader(f)
                if r.get('eval_return_mean') not in (None, '', 'nan')]


def write_merged(path: str, result: Dict[str, Any]) -> None:
    """`result` over the file's own entries: the configs run now replace theirs, the rest stay."""
    from ding.utils.fileio import atomic_write_json
    merged = dict(benchmark='d4rl_stop_values', configs={})
    if os.path.exists(path):
        with open(path) as f:
            merged = json.load(f)
    merged['configs'].update(result['configs'])
    atomic_write_json(path, merged)


def one_run(name: str, seed: int, max_train_iter: int) -> Dict[str, Any]:
    import torch
    torch.set_num_threads(1)
    from ding.entry.serial_offline import serial_pipeline_offline
    module = config_module(name)
    stop = float(module.main_config.env.stop_value)
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = os.path.join(tmp, f'{name}_seed{seed}')
        begin = time.perf_counter()
        policy = serial_pipeline_offline((module.main_config, module.create_config), seed=seed,
                                         max_train_iter=max_train_iter, exp_name=run_dir, keep_checkpoints=1)
        wall = time.perf_counter() - begin
        curve = evaluations(run_dir)
    reached = [it for it, ret in curve if ret >= stop]
    return dict(seed=seed, train_iter=int(policy.final_ctx.train_iter), wall_s=round(wall, 1), evaluations=curve,
                best_return=max(r for _, r in curve), last_return=curve[-1][1],
                stop_value_reached_at=reached[0] if reached else None)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--configs', nargs='+', default=['hopper_medium_td3bc', 'hopper_medium_cql=10000',
                                                    'hopper_medium_bcq=10000'],
                   help='config names, each NAME or NAME=MAX_TRAIN_ITER')
    p.add_argument('--seeds', nargs='+', type=int, default=[1000, 1001, 1002])
    p.add_argument('--max-train-iter', type=int, default=100000)
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--out', default=OUT)
    p.add_argument('--note', default='', help="what a reader should know of this sitting (load, dataset); kept with "
                   "each config's entry")
    args = p.parse_args()
    sys.path.insert(0, os.path.join(BENCH, 'compare'))
    from seed_guard import refuse_before_running
    refuse_before_running(p, args.seeds, tuning=False)
    budgets = dict((c.split('=')[0], int(c.split('=')[1]) if '=' in c else args.max_train_iter) for c in args.configs)
    result: Dict[str, Any] = dict(configs={})
    for name, budget in budgets.items():
        module = config_module(name)
        env = module.main_config.env
        result['configs'][name] = dict(
            date=datetime.now(timezone.utc).isoformat(), max_train_iter=budget, env_id=env.env_id,
            stop_value=env.stop_value, stop_value_source=module.STOP_VALUE_SOURCE,
            dataset=dataset_summary(env.env_id), runs=[], **(dict(note=args.note) if args.note else {}))
    pool = futures.ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context('spawn'))
    with pool:
        jobs = {pool.submit(one_run, name, seed, budget): name for name, budget in budgets.items()
                for seed in args.seeds}
        for job in futures.as_completed(jobs):
            run = job.result()
            result['configs'][jobs[job]]['runs'].append(run)
            print(jobs[job], {k: v for k, v in run.items() if k != 'evaluations'}, flush=True)
            write_merged(args.out, result)  # what finished so far survives an interrupted sitting
    for entry in result['configs'].values():
        entry['runs'].sort(key=lambda r: r['seed'])
        entry['reached'] = f"{sum(r['stop_value_reached_at'] is not None for r in entry['runs'])}/{len(entry['runs'])}"
    write_merged(args.out, result)


if __name__ == '__main__':
    main()
