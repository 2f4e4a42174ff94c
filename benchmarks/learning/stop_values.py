"""Shipped configs run unchanged against their own stop values, on held-out seeds (issue 37, item 5:
each config with a stop value reaches it in a recorded run, or names the published source of it).

    python benchmarks/learning/stop_values.py --configs dizoo/bitflip/config/bitflip_pure_dqn_config.py=200000 \
        dizoo/classic_control/pendulum/config/pendulum_bcq_config.py=20000 [--seeds 1000 1001 1002] [--jobs 2] \
        [--data-dir DIR] [--out benchmarks/results/stop_values.json] [--note TEXT]

A run is what `ding -m serial -c CONFIG -s SEED` runs for an online config, and what `ding -m
serial_offline` runs for an offline one (its policy declares `collect.data_type`): the config as
shipped, its stop value and evaluation frequency included. It ends when an evaluation reaches the
stop value, or at the budget: `PATH=N` is N env steps for an online config and N updates for an
offline one. Runs go `--jobs` at a time, one torch thread each, with `--data-dir` as the working
directory, where an offline config's relative `data_path` is read (DI-engine's configs read
`./pendulum_sac_data_generation/expert_demos.hdf5`, which `pendulum_make_dataset --kind expert
--episodes 5` writes: the 1,000 transitions DI-engine's `collect_demo_data.py` records).

Recorded per run: the evaluation curve ([env steps or updates, mean return]), the best and last
evaluation, where the stop value was first reached (None: not within the budget), wall seconds.
Per config: the stop value, its published source (the config's `STOP_VALUE_SOURCE`, or None), the
budget and its unit, and for an offline config its dataset's path, size and sha256. The configs
run now replace their entries in `--out`; the others stay.
"""
import argparse
import concurrent.futures as futures
import csv
import importlib.util
import multiprocessing
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from typing import Any, Callable, Dict, List, Tuple

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
OUT = os.path.join(BENCH, 'results', 'stop_values.json')


def config_name(path: str) -> str:
    """'dizoo/bitflip/config/bitflip_pure_dqn_config.py' -> 'bitflip_pure_dqn' (the results' key)."""
    return os.path.basename(path)[:-len('.py')].removesuffix('_config')


def load_config(path: str) -> Any:
    spec = importlib.util.spec_from_file_location(config_name(path) + '_config', os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def is_offline(module: Any) -> bool:
    from ding.entry.train_offline import learns_from_a_dataset
    return learns_from_a_dataset(module.create_config)


def evaluations(run_dir: str, step_column: str) -> List[List[float]]:
    """[env steps or updates, mean return] at each evaluation of the run (its progress.csv)."""
    with open(os.path.join(run_dir, 'progress.csv')) as f:
        return [[int(r[step_column]), round(float(r['eval_return_mean']), 3)] for r in csv.DictReader(f)
                if r.get('eval_return_mean') not in (None, '', 'nan')]


def one_run(path: str, seed: int, budget: int, data_dir: str) -> Dict[str, Any]:
    import torch
    torch.set_num_threads(1)
    os.chdir(data_dir)
    module = load_config(path)
    main, create = module.main_config, module.create_config
    stop = float(main.env.stop_value)
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = os.path.join(tmp, f'{config_name(path)}_seed{seed}')
        begin = time.perf_counter()
        if is_offline(module):
            from ding.entry.serial_offline import serial_pipeline_offline
            serial_pipeline_offline((main, create), seed=seed, max_train_iter=budget, exp_name=run_dir,
                                    keep_checkpoints=1)
            curve = evaluations(run_dir, 'train_iter')
        else:
            from ding.entry.pipeline import RunOptions
            from ding.entry.train import resolve_config, start_run
            main, create, info = resolve_config(None, None, os.path.join(ROOT, path))
            start_run(main, create, info, seed, RunOptions(max_env_step=budget, progress=False,
                                                           checkpoint_freq=10 ** 12), exp_name=run_dir)
            curve = evaluations(run_dir, 'env_step')
        wall = time.perf_counter() - begin
    reached = [step for step, ret in curve if ret >= stop]
    return dict(seed=seed, wall_s=round(wall, 1), evaluations=curve, best_return=max(r for _, r in curve),
                last_return=curve[-1][1], stop_value_reached_at=reached[0] if reached else None)


def describe(path: str, budget: int, data_dir: str) -> Dict[str, Any]:
    """The config's entry in the results, before its runs."""
    module = load_config(path)
    offline = is_offline(module)
    entry = dict(config=path, date=datetime.now(timezone.utc).isoformat(), stop_value=module.main_config.env.stop_value,
                 stop_value_source=getattr(module, 'STOP_VALUE_SOURCE', None), budget=budget,
                 budget_unit='updates' if offline else 'env steps', runs=[])
    if offline:
        from ding.data.dataset_fingerprint import dataset_fingerprint
        data_path = module.main_config.policy.collect.get('data_path')
        if data_path is None:  # a D4RL config: the local file of its env id
            from ding.data.offline_dataset import d4rl_dataset_path
            data_path = d4rl_dataset_path(module.main_config.env.env_id)
        entry['dataset'] = dataset_fingerprint(os.path.join(data_dir, data_path))
    return entry


def run_all(entries: Dict[str, Dict[str, Any]], jobs: Dict[Tuple[str, int], Callable[[], Dict[str, Any]]],
            parallel: int, out: str, merge: Callable[[str, Dict[str, Any]], None]) -> None:
    """Run `jobs` ((config key, seed) -> a picklable call) `parallel` at a time; each finished run
    goes into its config's entry, and the results file is rewritten after each, so an interrupted
    sitting keeps what finished."""
    pool = futures.ProcessPoolExecutor(parallel, mp_context=multiprocessing.get_context('spawn'))
    with pool:
        running = {pool.submit(call): key for (key, _), call in jobs.items()}
        for job in futures.as_completed(running):
            run = job.result()
            entries[running[job]]['runs'].append(run)
            print(running[job], {k: v for k, v in run.items() if k != 'evaluations'}, flush=True)
            merge(out, dict(configs=entries))
    for entry in entries.values():
        entry['runs'].sort(key=lambda r: r['seed'])
        entry['reached'] = f"{sum(r['stop_value_reached_at'] is not None for r in entry['runs'])}/{len(entry['runs'])}"
    merge(out, dict(configs=entries))


def write_merged(path: str, result: Dict[str, Any], benchmark: str = 'stop_values') -> None:
    """`result` over the file's own entries: the configs run now replace theirs, the rest stay."""
    import json
    from ding.utils.fileio import atomic_write_json
    merged = dict(benchmark=benchmark, configs={})
    if os.path.exists(path):
        with open(path) as f:
            merged = json.load(f)
    merged['configs'].update(result['configs'])
    atomic_write_json(path, merged)


def markdown(data: Dict[str, Any]) -> str:
    """One row per config: its stop value and source, the budget, how many seeds reached it, and
    per seed where (or the best return when it did not)."""
    lines = ['| config | stop value | source | budget | reached | per seed: reached at, or best return |',
             '|---|---|---|---|---|---|']
    for name, entry in sorted(data['configs'].items()):
        unit = entry['budget_unit']
        per_seed = '; '.join(
            f"{r['seed']}: {r['stop_value_reached_at']:,} {unit}" if r['stop_value_reached_at'] is not None else
            f"{r['seed']}: not reached (best {r['best_return']:,.4g})" for r in entry['runs'])
        lines.append(f"| `{name}` | {entry['stop_value']:,g} | {entry['stop_value_source'] or 'none'} | "
                     f"{entry['budget']:,} {unit} | {entry['reached']} | {per_seed} |")
    return '\n'.join(lines)


def sitting_arguments(p: argparse.ArgumentParser, out: str) -> argparse.ArgumentParser:
    """The options of every stop-value sitting: held-out --seeds, --jobs at a time, --out, --note."""
    p.add_argument('--seeds', nargs='+', type=int, default=[1000, 1001, 1002])
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--out', default=out)
    p.add_argument('--note', default='', help="what a reader should know of this sitting (load, dataset); kept with "
                   "each config's entry")
    return p


def parse_sitting(p: argparse.ArgumentParser) -> argparse.Namespace:
    """The parsed options; a tuning seed is refused before anything trains."""
    args = p.parse_args()
    sys.path.insert(0, os.path.join(BENCH, 'compare'))
    from seed_guard import refuse_before_running
    refuse_before_running(p, args.seeds, tuning=False)
    return args


def main() -> None:
    from functools import partial
    p = sitting_arguments(argparse.ArgumentParser(description=__doc__.split('\n\n')[0]), OUT)
    p.add_argument('--configs', nargs='+', required=True, help='config files (relative to the repository), each '
                   'PATH=BUDGET: env steps for an online config, updates for an offline one')
    p.add_argument('--data-dir', default=os.getcwd(), help="working directory of the runs (offline configs' "
                   'relative data paths are read from it)')
    args = parse_sitting(p)
    budgets = {}
    for spec in args.configs:
        path, _, budget = spec.partition('=')
        if not budget.isdigit():
            p.error(f'{spec}: give PATH=BUDGET (env steps for an online config, updates for an offline one)')
        budgets[path] = int(budget)
    data_dir = os.path.abspath(args.data_dir)
    entries = {config_name(path): dict(describe(path, budget, data_dir), **(dict(note=args.note) if args.note else {}))
               for path, budget in budgets.items()}
    jobs = {(config_name(path), seed): partial(one_run, path, seed, budget, data_dir)
            for path, budget in budgets.items() for seed in args.seeds}
    run_all(entries, jobs, args.jobs, args.out, write_merged)


if __name__ == '__main__':
    main()
