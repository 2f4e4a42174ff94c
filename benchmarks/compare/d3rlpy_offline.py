"""TD3+BC, CQL and IQL side by side with d3rlpy on our locally made Pendulum "medium" dataset
(nothing downloaded): time per update, and the evaluation return over training, for several seeds.

    python benchmarks/compare/d3rlpy_offline.py [--algos td3_bc cql iql] [--seeds 1000 1001 1002]
        [--updates 5000] [--dataset /tmp/pendulum_medium.hdf5] [--runs ours ours_matched d3rlpy] [--out PATH]

- Dataset: `dizoo/classic_control/pendulum/entry/pendulum_make_dataset.py --kind medium`
  (50 episodes of our SAC expert with half its actions uniform; made here if missing).
- For each algo and seed, one after another, one torch thread each, CPU: `ours` (the dizoo config
  `pendulum_<algo>_config`), `ours_matched` (ours at d3rlpy's batch 256 and 256-wide layers) and
  `d3rlpy` (d3rlpy 2.8.1 with its reproduction settings for the algo, in its own venv made by
  `venvs.py`, run by `d3rlpy_offline_runner.py`). Observations are normalised with the dataset's
  statistics for TD3+BC on both sides (its paper and both frameworks' settings do so), for CQL and
  IQL on neither.
- Both sides are timed through their user-facing call: ours through `task.run()` (offline data
  fetcher and trainer), d3rlpy through `fit()`, neither logging.
- Every `--eval-every` updates: 10 greedy episodes on Pendulum-v1, episode i reset with seed
  100000 + i, the same for every run (`offline_eval.evaluate`). Training time
  excludes evaluations.
- Seeds: 1000 and up (`seed_guard.py`); `--tuning` allows the tuning seeds 0-99.
- Normalised score, as D4RL states it: 100 * (R - R_random) / (R_expert - R_random), with
  R_random the uniform random policy's and R_expert the SAC expert's (greedy) return on the same
  10 episodes.
Writes benchmarks/results/d3rlpy_offline_pendulum.json; `markdown(data)` is its table in docs/offline.md.
"""
import argparse
import copy
import datetime
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..'))
sys.path.insert(0, HERE)
from benchmarks.machine_load import CpuTimes  # noqa: E402
from offline_eval import evaluate  # noqa: E402

ALGOS = ('td3_bc', 'cql', 'iql')  # our registry names; d3rlpy_offline_runner.make_algo knows the same
# ours at d3rlpy's sizes: batch 256, 256-wide layers, and the learning rates of its settings
MATCHED = {
    'td3_bc': {'learn': {'batch_size': 256, 'learning_rate_actor': 3e-4, 'learning_rate_critic': 3e-4}},
    'cql': {'learn': {'batch_size': 256, 'learning_rate_policy': 1e-4, 'learning_rate_q': 3e-4}},
    'iql': {'learn': {'batch_size': 256}},
}
WIDE = {'model': {'actor_head_hidden_size': 256, 'critic_head_hidden_size': 256}}


def expert_dir(data_path: str) -> str:
    """Where the SAC expert behind the dataset lives: beside the dataset."""
    return os.path.join(os.path.dirname(data_path), 'pendulum_expert')


def ensure_dataset(path: str) -> str:
    if not os.path.isfile(path):
        from dizoo.classic_control.pendulum.entry.pendulum_make_dataset import make_dataset
        print(make_dataset(path, kind='medium', episodes=50, expert_dir=expert_dir(path)))
    return path


def reference_returns(data_path: str) -> Dict[str, float]:
    """The random policy's and the dataset's SAC expert's returns on the protocol's episodes."""
    from dizoo.classic_control.pendulum.entry.pendulum_make_dataset import expert_checkpoint, load_expert
    expert = load_expert(expert_checkpoint(expert_dir(data_path)))
    rng = np.random.default_rng(0)
    greedy = lambda obs: expert.eval_mode.forward_batch(np.asarray(obs, np.float32)[None])['action'][0]  # noqa: E731
    return {'random': evaluate(lambda obs: rng.uniform(-1, 1, 1)), 'expert': evaluate(greedy)}


def normalised(ret: float, reference: Dict[str, float]) -> float:
    return 100.0 * (ret - reference['random']) / (reference['expert'] - reference['random'])


def run_ours(algo: str, data_path: str, updates: int, eval_every: int, seed: int, overrides: Optional[dict],
             config_module: Optional[str] = None, evaluate_fn: Callable[..., float] = evaluate) -> Dict[str, Any]:
    """Our `algo` at its dizoo config (`config_module`; default: the Pendulum one) on the CPU, through
    `task.run()`, evaluated with `evaluate_fn` every `eval_every` updates (also by edac_vs_di_engine.py)."""
    from easydict import EasyDict

    from ding.config import compile_config
    from ding.data import create_dataset
    from ding.entry.serial_offline import NormalizedObsActing
    from ding.framework import task
    from ding.framework.context import OfflineRLContext
    from ding.framework.middleware import offline_data_fetcher, trainer
    from ding.utils import set_pkg_seed
    from ding.utils.registry import POLICY_REGISTRY
    config = importlib.import_module(config_module or f'dizoo.classic_control.pendulum.config.pendulum_{algo}_config')
    main = EasyDict(copy.deepcopy(config.main_config))
    main.policy.collect.data_path = data_path
    main.policy.cuda = False  # every side of these comparisons trains on the CPU
    for section, values in (overrides or {}).items():
        main.policy[section].update(values)
    cfg = compile_config(main, create_cfg=copy.deepcopy(config.create_config), auto=True, seed=seed,
                         save_cfg=False)
    set_pkg_seed(seed, use_cuda=False)
    dataset = create_dataset(cfg)  # TD3+BC's config asks for observations normalised by the dataset's statistics
    policy = POLICY_REGISTRY.lookup(algo)(cfg.policy, enable_field=['learn', 'eval'])
    acting = NormalizedObsActing(policy.eval_mode, dataset.mean, dataset.std) if dataset.obs_normalized \
        else policy.eval_mode
    rows: List[dict] = []
    clock = {'start': None, 'eval_s': 0.0}

    def protocol_evaluation(ctx: Any) -> None:
        """At the head of the chain: every `eval_every` updates, the protocol's evaluation, clocked
        apart from training (as d3rlpy's epoch callback is); the run ends after the last one."""
        if ctx.train_iter == 0 or ctx.train_iter % eval_every:
            return
        t0 = time.perf_counter()
        acting.reset()
        ret = evaluate_fn(lambda obs: acting.forward_batch(np.asarray(obs, np.float32)[None])['action'][0])
        rows.append({'updates': int(ctx.train_iter), 'train_s': t0 - clock['start'] - clock['eval_s'], 'return': ret})
        clock['eval_s'] += time.perf_counter() - t0
        print(json.dumps(rows[-1]), flush=True)
        if ctx.train_iter >= updates:
            task.finish = True

    # The user-facing call, as d3rlpy is timed through fit(): task.run() over the offline pipeline of
    # serial_pipeline_offline less its logger and checkpoints (d3rlpy's side logs nothing either).
    with task.start(ctx=OfflineRLContext()):
        task.use(protocol_evaluation)
        task.use(offline_data_fetcher(cfg, dataset))
        task.use(trainer(cfg, policy.learn_mode, log_freq=0))
        clock['start'] = time.perf_counter()
        task.run()
    return {'framework': 'ding', 'batch_size': int(cfg.policy.learn.batch_size),
            'hidden': int(cfg.policy.model.actor_head_hidden_size), 'obs_normalized': dataset.obs_normalized,
            'learn': {k: v for k, v in cfg.policy.learn.items() if isinstance(v, (int, float, bool))}, 'rows': rows}


def run_peer(runner: str, peer_python: str, data_path: str, runner_args: List[str]) -> Dict[str, Any]:
    """`runner` (a file beside this one) in the peer's venv on the dataset's columns, written as an
    .npz for it; returns the JSON log it writes."""
    from ding.data.offline_dataset import load_hdf5
    batch = load_hdf5(data_path)
    with tempfile.TemporaryDirectory() as tmp:
        npz, out = os.path.join(tmp, 'data.npz'), os.path.join(tmp, 'log.json')
        np.savez(npz, **{k: np.asarray(batch[k]) for k in ('obs', 'action', 'reward', 'next_obs', 'done', 'truncated')})
        subprocess.run([peer_python, os.path.join(HERE, runner), '--npz', npz, '--out', out, *runner_args],
                       check=True, env=dict(os.environ, OMP_NUM_THREADS='1'))
        with open(out) as f:
            return json.load(f)


def run_d3rlpy(algo: str, peer_python: str, data_path: str, updates: int, eval_every: int,
               seed: int) -> Dict[str, Any]:
    return run_peer('d3rlpy_offline_runner.py', peer_python, data_path,
                    ['--algo', algo, '--updates', str(updates), '--eval-every', str(eval_every), '--seed', str(seed)])


def summarise(run: Dict[str, Any], thresholds: List[float]) -> Dict[str, Any]:
    """Time per update, final and best return, and the first evaluation at or above each threshold."""
    rows = run['rows']
    last = rows[-1]
    to_threshold = {}
    for threshold in thresholds:
        reached = next((r for r in rows if r['return'] >= threshold), None)
        to_threshold[str(threshold)] = reached and {'updates': reached['updates'], 'train_s': reached['train_s']}
    return dict(run, s_per_10k_updates=last['train_s'] / last['updates'] * 1e4,
                ms_per_update=last['train_s'] / last['updates'] * 1e3, final_return=last['return'],
                best_return=max(r['return'] for r in rows), to_threshold=to_threshold)


def aggregate(per_seed: List[Dict[str, Any]], reference: Dict[str, float]) -> Dict[str, Any]:
    """Median over seeds of time per update and of final and best return (also normalised)."""
    def median(key: str) -> float:
        return float(np.median([r[key] for r in per_seed]))
    return {'seeds': len(per_seed), 'median_ms_per_update': median('ms_per_update'),
            'median_final_return': median('final_return'), 'median_best_return': median('best_return'),
            'median_final_normalised': normalised(median('final_return'), reference),
            'final_returns': [r['final_return'] for r in per_seed]}


ALGO_NAMES = {'td3_bc': 'TD3+BC', 'cql': 'CQL', 'iql': 'IQL'}


def markdown(data: Dict[str, Any]) -> str:
    """The comparison table of a results file: per algo, the median over seeds of ms per update and
    of the final return (normalised in brackets) for ours, ours at d3rlpy's sizes, and d3rlpy."""
    head = ('| algo | seeds | ms per update: ours / at d3rlpy\'s sizes / d3rlpy | time vs d3rlpy: ours / at its sizes '
            '| final return (normalised): ours / at d3rlpy\'s sizes / d3rlpy |')
    lines = [head, '|---|---|---|---|---|']
    for algo, by_run in data['results'].items():
        runs = [by_run.get(name, {}).get('median') for name in ('ours', 'ours_matched', 'd3rlpy')]
        ms = ' / '.join(f"{r['median_ms_per_update']:.2f}" if r else '-' for r in runs)
        ratio = ' / '.join(f"{r['time_per_update_vs_d3rlpy']:.2f}x" if r and 'time_per_update_vs_d3rlpy' in r
                           else '-' for r in runs[:2])
        final = ' / '.join(f"{r['median_final_return']:,.0f} ({r['median_final_normalised']:.0f})" if r else '-'
                           for r in runs)
        seeds = ', '.join(str(seed) for seed in by_run['run']['seeds'])
        lines.append(f'| {ALGO_NAMES.get(algo, algo)} | {seeds} | {ms} | {ratio} | {final} |')
    ref = data['reference_returns']
    lines += ['', f"{data['results'][next(iter(data['results']))]['run']['updates']:,} updates; evaluation "
              f"every {data['eval_every']:,}; normalised: random play {ref['random']:,.0f} scores 0, the "
              f"dataset's SAC expert {ref['expert']:,.0f} scores 100."]
    return '\n'.join(lines)


def main() -> None:
    from ding.utils.fileio import atomic_write_json
    from seed_guard import refuse_before_running
    from venvs import DEFAULT_VENV_ROOT, ensure_venv
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--algos', nargs='+', default=list(ALGOS), choices=ALGOS)
    p.add_argument('--seeds', type=int, nargs='+', default=[1000, 1001, 1002])
    p.add_argument('--tuning', action='store_true',
                   help='a tuning run: seeds below 1000 allowed (never for a published table)')
    p.add_argument('--updates', type=int, default=5000)
    p.add_argument('--eval-every', type=int, default=500)
    p.add_argument('--thresholds', type=float, nargs='+', default=[-800.0, -600.0, -400.0])
    p.add_argument('--dataset', default=os.path.join(tempfile.gettempdir(), 'pendulum_medium.hdf5'))
    p.add_argument('--runs', nargs='+', default=['ours', 'ours_matched', 'd3rlpy'],
                   choices=['ours', 'ours_matched', 'd3rlpy'])
    p.add_argument('--merge', action='store_true', help='keep the results file\'s other algos (each keeps its date)')
    p.add_argument('--ours-overrides', default='', metavar='JSON',
                   help='the "ours" run with these policy sections changed, e.g. \'{"learn": {"batch_size": 256}}\'')
    p.add_argument('--out', default=os.path.join(HERE, '..', 'results', 'd3rlpy_offline_pendulum.json'))
    args = p.parse_args()
    refuse_before_running(p, args.seeds, args.tuning)  # a published table reports on seeds no config was chosen on
    torch.set_num_threads(1)
    data_path = ensure_dataset(args.dataset)
    peer_python = str(ensure_venv(DEFAULT_VENV_ROOT, 'd3rlpy')) if 'd3rlpy' in args.runs else None
    reference = reference_returns(data_path)
    print('reference returns', reference, flush=True)
    path = args.out
    results: Dict[str, Dict[str, Any]] = {}
    with CpuTimes() as load:
        for algo in args.algos:
            per_run: Dict[str, List[Dict[str, Any]]] = {name: [] for name in args.runs}
            for seed in args.seeds:
                for name in args.runs:
                    print(f'--- {algo} {name} seed {seed}', flush=True)
                    if name == 'd3rlpy':
                        run = run_d3rlpy(algo, peer_python, data_path, args.updates, args.eval_every, seed)
                    else:
                        overrides = {**WIDE, **MATCHED[algo]} if name == 'ours_matched' else \
                            (json.loads(args.ours_overrides) if args.ours_overrides else None)
                        run = dict(run_ours(algo, data_path, args.updates, args.eval_every, seed, overrides),
                                   overrides=overrides)
                    per_run[name].append(dict(summarise(run, args.thresholds), seed=seed))
            results[algo] = {name: {'median': aggregate(runs, reference), 'runs': runs}
                             for name, runs in per_run.items()}
            if 'd3rlpy' in per_run:
                peer_ms = results[algo]['d3rlpy']['median']['median_ms_per_update']
                for name in per_run:
                    results[algo][name]['median']['time_per_update_vs_d3rlpy'] = \
                        results[algo][name]['median']['median_ms_per_update'] / peer_ms
    date = datetime.datetime.now(datetime.timezone.utc).isoformat()
    for algo in results:
        results[algo]['run'] = {'date': date, 'updates': args.updates, 'seeds': args.seeds,
                                'machine_cpu_fractions': load.fractions}
    if args.merge and os.path.isfile(path):
        with open(path) as f:
            before = json.load(f)
        for kept in before['results'].values():  # a file written before runs carried their own dates
            kept.setdefault('run', {k: before.get(k) for k in ('date', 'updates', 'seeds', 'machine_cpu_fractions')})
        results = {**before['results'], **results}
    out = {'benchmark': 'd3rlpy_offline_pendulum', 'date': date,
           'dataset': {'path': data_path, 'kind': 'medium', 'episodes': 50}, 'eval_every': args.eval_every,
           'thresholds': args.thresholds, 'torch_threads': 1, 'reference_returns': reference, 'results': results}
    atomic_write_json(path, out)
    for algo, by_run in results.items():
        for name, r in by_run.items():
            if name != 'run':  # the run's date and settings, beside each framework's results
                print(f'{algo} {name}: {json.dumps(r["median"])}')
    print('wrote', os.path.abspath(path))


if __name__ == '__main__':
    main()
