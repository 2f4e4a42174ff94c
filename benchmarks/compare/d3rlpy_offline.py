"""TD3+BC side by side with d3rlpy on our locally made Pendulum "medium" dataset (nothing
downloaded): time per 10k updates, and training time to an evaluation return.

    python benchmarks/compare/d3rlpy_offline.py [--updates 6000] [--thresholds -800 -600 -400]
        [--dataset /tmp/pendulum_medium.hdf5] [--peer-python /work/peers/d3rlpy/bin/python]

- Dataset: `dizoo/classic_control/pendulum/entry/pendulum_make_dataset.py --kind medium`
  (50 episodes of our SAC expert with half its actions uniform; made here if missing).
- Runs, one after another, one torch thread each, CPU:
  `ours` (TD3+BC with the dizoo config `pendulum_td3_bc_config`), `ours_matched` (ours with
  d3rlpy's sizes: batch 256, 2x256 hidden layers, both learning rates 3e-4) and `d3rlpy`
  (d3rlpy 2.x's reproduction settings for TD3+BC, in its own venv, run by
  `d3rlpy_offline_runner.py`). Both sides normalise observations with the dataset's statistics.
- Every `--eval-every` updates: 10 greedy episodes on Pendulum-v1, episode i reset with seed
  100000 + i, the same for every run (`d3rlpy_offline_runner.evaluate`). Training time
  excludes evaluations.
Writes benchmarks/results/d3rlpy_td3bc_pendulum.json.
"""
import argparse
import copy
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..'))
sys.path.insert(0, HERE)
from benchmarks.machine_load import CpuTimes  # noqa: E402
from d3rlpy_offline_runner import evaluate  # noqa: E402

MATCHED = {'model': {'actor_head_hidden_size': 256, 'critic_head_hidden_size': 256},
           'learn': {'batch_size': 256, 'learning_rate_actor': 3e-4, 'learning_rate_critic': 3e-4}}


def ensure_dataset(path: str) -> str:
    if not os.path.isfile(path):
        from dizoo.classic_control.pendulum.entry.pendulum_make_dataset import make_dataset
        print(make_dataset(path, kind='medium', episodes=50, expert_dir=os.path.join(os.path.dirname(path),
                                                                                      'pendulum_expert')))
    return path


def run_ours(data_path: str, updates: int, eval_every: int, seed: int, overrides: Optional[dict]) -> Dict[str, Any]:
    from easydict import EasyDict

    from ding.config import compile_config
    from ding.data import create_dataset
    from ding.entry.serial_offline import NormalizedObsActing
    from ding.framework.context import OfflineRLContext
    from ding.framework.middleware import offline_data_fetcher
    from ding.utils import set_pkg_seed
    from ding.utils.registry import POLICY_REGISTRY
    from dizoo.classic_control.pendulum.config import pendulum_td3_bc_config as config
    main = EasyDict(copy.deepcopy(config.main_config))
    main.policy.collect.data_path = data_path
    for section, values in (overrides or {}).items():
        main.policy[section].update(values)
    cfg = compile_config(main, create_cfg=copy.deepcopy(config.create_config), auto=True, seed=seed,
                         save_cfg=False)
    set_pkg_seed(seed, use_cuda=False)
    dataset = create_dataset(cfg)  # observations normalised by the dataset's statistics, as the config asks
    policy = POLICY_REGISTRY.lookup('td3_bc')(cfg.policy, enable_field=['learn', 'eval'])
    acting = NormalizedObsActing(policy.eval_mode, dataset.mean, dataset.std)
    fetch, ctx = offline_data_fetcher(cfg, dataset), OfflineRLContext()
    rows: List[dict] = []
    train_s = 0.0
    for done in range(eval_every, updates + 1, eval_every):
        start = time.perf_counter()
        for _ in range(eval_every):
            fetch(ctx)
            policy.learn_mode.forward(ctx.train_data)
        train_s += time.perf_counter() - start
        acting.reset()
        ret = evaluate(lambda obs: acting.forward_batch(np.asarray(obs)[None])['action'][0])
        rows.append({'updates': done, 'train_s': train_s, 'return': ret})
        print(json.dumps(rows[-1]), flush=True)
    return {'framework': 'ding', 'batch_size': int(cfg.policy.learn.batch_size),
            'hidden': int(cfg.policy.model.actor_head_hidden_size), 'alpha': float(cfg.policy.learn.alpha),
            'rows': rows}


def run_d3rlpy(peer_python: str, data_path: str, updates: int, eval_every: int, seed: int) -> Dict[str, Any]:
    from ding.data.offline_dataset import load_hdf5
    batch = load_hdf5(data_path)
    with tempfile.TemporaryDirectory() as tmp:
        npz, out = os.path.join(tmp, 'data.npz'), os.path.join(tmp, 'log.json')
        np.savez(npz, **{k: np.asarray(batch[k]) for k in ('obs', 'action', 'reward', 'done', 'truncated')})
        subprocess.run([peer_python, os.path.join(HERE, 'd3rlpy_offline_runner.py'), '--npz', npz, '--updates',
                        str(updates), '--eval-every', str(eval_every), '--seed', str(seed), '--out', out],
                       check=True, env=dict(os.environ, OMP_NUM_THREADS='1'))
        with open(out) as f:
            return json.load(f)


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


def main() -> None:
    from ding.utils.fileio import atomic_write_json
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--updates', type=int, default=6000)
    p.add_argument('--eval-every', type=int, default=500)
    p.add_argument('--thresholds', type=float, nargs='+', default=[-800.0, -600.0, -400.0])
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--dataset', default=os.path.join(tempfile.gettempdir(), 'pendulum_medium.hdf5'))
    p.add_argument('--peer-python', default='/work/peers/d3rlpy/bin/python')
    p.add_argument('--runs', nargs='+', default=['ours', 'ours_matched', 'd3rlpy'],
                   choices=['ours', 'ours_matched', 'd3rlpy'])
    args = p.parse_args()
    torch.set_num_threads(1)
    data_path = ensure_dataset(args.dataset)
    results = {}
    with CpuTimes() as load:
        for name in args.runs:
            print(f'--- {name}', flush=True)
            if name == 'd3rlpy':
                run = run_d3rlpy(args.peer_python, data_path, args.updates, args.eval_every, args.seed)
            else:
                run = run_ours(data_path, args.updates, args.eval_every, args.seed,
                               MATCHED if name == 'ours_matched' else None)
            results[name] = summarise(run, args.thresholds)
    if 'd3rlpy' in results:
        for name in ('ours', 'ours_matched'):
            if name in results:
                results[name]['time_per_update_vs_d3rlpy'] = (results[name]['ms_per_update']
                                                              / results['d3rlpy']['ms_per_update'])
    out = {'benchmark': 'd3rlpy_td3bc_pendulum', 'date': datetime.datetime.now(datetime.timezone.utc).isoformat(),
           'dataset': {'path': data_path, 'kind': 'medium', 'episodes': 50}, 'updates': args.updates,
           'eval_every': args.eval_every, 'thresholds': args.thresholds, 'seed': args.seed, 'torch_threads': 1,
           'machine_cpu_fractions': load.fractions, 'results': results}
    path = os.path.join(HERE, '..', 'results', 'd3rlpy_td3bc_pendulum.json')
    atomic_write_json(path, out)
    for name, r in results.items():
        print(f'{name}: {r["ms_per_update"]:.2f} ms/update, final {r["final_return"]:.1f}, best {r["best_return"]:.1f}, '
              f'first at or above each threshold: {r["to_threshold"]}')
    print('wrote', os.path.abspath(path))


if __name__ == '__main__':
    main()
