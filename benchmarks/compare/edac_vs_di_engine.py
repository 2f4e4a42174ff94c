"""EDAC side by side with DI-engine 0.5.3's own EDAC: the same local halfcheetah-medium-v2 data,
the same number of updates, the same evaluation (issue 37: ours must reach DI-engine's return).

    python benchmarks/compare/edac_vs_di_engine.py [--seeds 1000 1001 1002] [--updates 6000]
        [--eval-every 500] [--dataset PATH] [--runs ours di_engine] [--out PATH]
    python benchmarks/compare/edac_vs_di_engine.py --merge PART.json ... [--out PATH]

Parts run at once on different cores (`--runs`, `--seeds` and `--out` each) are joined by
`--merge` into one table: same dataset, budget and evaluation, no (framework, seed) twice.

- Dataset: `python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id halfcheetah-medium-v2` (100
  episodes of our SAC stopped after 100k env steps; made here if missing, which trains that SAC
  first). Nothing is downloaded: D4RL's own file needs the `d4rl` package and its gym.
- Ours: `dizoo/d4rl/config/halfcheetah_medium_edac_config.py` through `task.run()` (offline
  data fetcher and trainer; d3rlpy_offline.run_ours). DI-engine: the config of the same name in
  its dizoo, through its own `task.run()` (edac_di_engine_runner.py, in its venv made by
  `venvs.py`). Both: ten critics of 3 x 256, batch 256, eta 1, learning rates 3e-4; the CPU,
  one torch thread each, one run after another.
- Every `--eval-every` updates: `--episodes` greedy episodes of HalfCheetah-v5 (the dataset's
  env), episode i reset with seed 100000 + i, the same code for both (offline_eval.py). Training
  time excludes evaluations.
- Seeds: 1000 and up (`seed_guard.py`); `--tuning` allows the tuning seeds 0-99.
Writes benchmarks/results/edac_vs_di_engine.json; `markdown(data)` is its table.
"""
import argparse
import datetime
import functools
import json
import os
import sys
from typing import Any, Dict, List

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..'))
sys.path.insert(0, HERE)
from benchmarks.machine_load import CpuTimes  # noqa: E402
from d3rlpy_offline import run_ours, run_peer, summarise  # noqa: E402
from offline_eval import evaluate  # noqa: E402

DATASET_ID = 'halfcheetah-medium-v2'
EVAL_ENV_ID = 'HalfCheetah-v5'  # dizoo.d4rl.envs.d4rl_env.gymnasium_env_id(DATASET_ID)
CONFIG = 'dizoo.d4rl.config.halfcheetah_medium_edac_config'
RUNS = ('ours', 'di_engine')


def ensure_dataset(path: str) -> str:
    if not os.path.isfile(path):
        from dizoo.d4rl.entry.d4rl_make_dataset import make_dataset
        print(make_dataset(DATASET_ID, out=path), flush=True)
    return path


def reference_returns(data_path: str, episodes: int) -> Dict[str, float]:
    """Uniform random play's return on the protocol's episodes, and the dataset's mean episode return."""
    from ding.data.offline_dataset import load_hdf5
    from dizoo.d4rl.entry.d4rl_make_dataset import mean_episode_return
    batch = load_hdf5(data_path)
    rng, width = np.random.default_rng(0), np.asarray(batch['action']).shape[1]
    return {'random': evaluate(lambda obs: rng.uniform(-1, 1, width), EVAL_ENV_ID, episodes),
            'dataset': mean_episode_return(batch['reward'], batch['done'], batch['truncated'])}


def one_run(name: str, peer_python: str, data_path: str, updates: int, eval_every: int, episodes: int,
            seed: int) -> Dict[str, Any]:
    if name == 'ours':
        run = run_ours('edac', data_path, updates, eval_every, seed, None, config_module=CONFIG,
                       evaluate_fn=functools.partial(evaluate, env_id=EVAL_ENV_ID, episodes=episodes))
        return dict(run, framework='ding')
    return run_peer('edac_di_engine_runner.py', peer_python, data_path,
                    ['--env-id', EVAL_ENV_ID, '--updates', str(updates), '--eval-every', str(eval_every),
                     '--episodes', str(episodes), '--seed', str(seed)])


def aggregate(per_seed: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Median over seeds of time per update and of the final and best returns."""
    def median(key: str) -> float:
        return float(np.median([r[key] for r in per_seed]))
    return {'seeds': len(per_seed), 'median_ms_per_update': median('ms_per_update'),
            'median_final_return': median('final_return'), 'median_best_return': median('best_return'),
            'final_returns': [r['final_return'] for r in per_seed], 'best_returns': [r['best_return'] for r in per_seed]}


NAMES = {'ours': 'ding (ours)', 'di_engine': 'DI-engine 0.5.3'}


def markdown(data: Dict[str, Any]) -> str:
    """One row per framework: median ms per update, final and best return, per-seed finals."""
    lines = ['| framework | seeds | ms per update | final return (median) | best return (median) | final per seed |',
             '|---|---|---|---|---|---|']
    for name, result in data['results'].items():
        m = result['median']
        seeds = ', '.join(str(r['seed']) for r in result['runs'])
        finals = ', '.join(f'{r:,.0f}' for r in m['final_returns'])
        lines.append(f"| {NAMES.get(name, name)} | {seeds} | {m['median_ms_per_update']:.0f} | "
                     f"{m['median_final_return']:,.0f} | {m['median_best_return']:,.0f} | {finals} |")
    ref = data['reference_returns']
    lines += ['', f"{data['updates']:,} updates; evaluation every {data['eval_every']:,} ({data['episodes']} episodes "
              f"of {EVAL_ENV_ID}); random play {ref['random']:,.0f}, the dataset's episodes {ref['dataset']:,.0f}."]
    return '\n'.join(lines)


def _cpu_fractions_per_run(part: Dict[str, Any]) -> List[Any]:
    """One entry per sitting that ran: a merged result holds a list of them, a part one."""
    fractions = part.get('machine_cpu_fractions')
    return fractions if isinstance(fractions, list) else [fractions]


def merge(parts: List[Dict[str, Any]]) -> Dict[str, Any]:
    """One result from parts of a sitting run side by side: their runs per framework, by seed."""
    same = ('updates', 'eval_every', 'episodes', 'dataset')
    for part in parts[1:]:
        differ = [k for k in same if part[k] != parts[0][k]]
        if differ:
            raise ValueError(f'the parts differ in {differ}: not one comparison')
    runs: Dict[str, List[Dict[str, Any]]] = {}
    for part in parts:
        for name, result in part['results'].items():
            runs.setdefault(name, []).extend(result['runs'])
    for name, rs in runs.items():
        seeds = [r['seed'] for r in rs]
        if len(set(seeds)) != len(seeds):
            raise ValueError(f'{name} has a seed twice among the parts: {sorted(seeds)}')
        rs.sort(key=lambda r: r['seed'])
    return {**{k: parts[0][k] for k in ('benchmark', *same, 'torch_threads', 'reference_returns')},
            'date': max(p['date'] for p in parts), 'complete': all(p.get('complete', True) for p in parts),
            'note': ' | '.join(dict.fromkeys(p['note'] for p in parts if p.get('note'))),  # each note once
            'machine_cpu_fractions': [f for p in parts for f in _cpu_fractions_per_run(p)],
            'results': {name: {'median': aggregate(rs), 'runs': rs} for name, rs in runs.items()}}


def main() -> None:
    from ding.data.dataset_fingerprint import dataset_fingerprint
    from ding.data.offline_dataset import d4rl_dataset_path
    from ding.utils.fileio import atomic_write_json
    from seed_guard import refuse_before_running
    from venvs import DEFAULT_VENV_ROOT, ensure_venv
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--seeds', type=int, nargs='+', default=[1000, 1001, 1002])
    p.add_argument('--tuning', action='store_true',
                   help='a tuning run: seeds below 1000 allowed (never for a published table)')
    p.add_argument('--updates', type=int, default=6000)
    p.add_argument('--eval-every', type=int, default=500)
    p.add_argument('--episodes', type=int, default=10)
    p.add_argument('--dataset', default=None, help=f'default: where d4rl_make_dataset writes {DATASET_ID}')
    p.add_argument('--runs', nargs='+', default=list(RUNS), choices=RUNS)
    p.add_argument('--note', default='', help='what a reader should know of this sitting')
    p.add_argument('--out', default=os.path.join(HERE, '..', 'results', 'edac_vs_di_engine.json'))
    p.add_argument('--merge', nargs='+', metavar='PART', help='join these parts into --out; nothing runs')
    args = p.parse_args()
    if args.merge:
        parts = []
        for path in args.merge:
            with open(path) as f:
                parts.append(json.load(f))
        out = merge(parts)
        out['note'] = ' | '.join(n for n in (out['note'], args.note) if n)  # what the parts' notes could not know
        atomic_write_json(args.out, out)
        print(markdown(out))
        return
    refuse_before_running(p, args.seeds, args.tuning)  # a published table reports on seeds no config was chosen on
    torch.set_num_threads(1)
    data_path = ensure_dataset(args.dataset or d4rl_dataset_path(DATASET_ID))
    peer_python = str(ensure_venv(DEFAULT_VENV_ROOT, 'di_engine')) if 'di_engine' in args.runs else ''
    reference = reference_returns(data_path, args.episodes)
    print('reference returns', reference, flush=True)
    per_run: Dict[str, List[Dict[str, Any]]] = {name: [] for name in args.runs}
    # --merge compares it: a remade file differs (our SAC's 100k-step policy differs between sittings)
    dataset = {'path': data_path, 'id': DATASET_ID, 'sha256': dataset_fingerprint(data_path)['sha256']}

    def write(complete: bool, load: CpuTimes) -> Dict[str, Any]:
        # after every run, so a sitting cut short keeps the seeds it finished ('complete': False)
        out = {'benchmark': 'edac_vs_di_engine', 'date': datetime.datetime.now(datetime.timezone.utc).isoformat(),
               'complete': complete, 'dataset': dataset, 'updates': args.updates,
               'eval_every': args.eval_every, 'episodes': args.episodes, 'torch_threads': 1,
               'reference_returns': reference, 'note': args.note,
               'machine_cpu_fractions': getattr(load, 'fractions', None),  # set when the sitting ends
               'results': {name: {'median': aggregate(runs), 'runs': runs} for name, runs in per_run.items() if runs}}
        atomic_write_json(args.out, out)
        return out

    with CpuTimes() as load:
        for seed in args.seeds:
            for name in args.runs:
                print(f'--- edac {name} seed {seed}', flush=True)
                run = one_run(name, peer_python, data_path, args.updates, args.eval_every, args.episodes, seed)
                per_run[name].append(dict(summarise(run, []), seed=seed))
                write(False, load)
    out = write(True, load)
    print(markdown(out))
    print('wrote', os.path.abspath(args.out))


if __name__ == '__main__':
    main()
