"""The sweep behind dizoo's DQN CartPole-v1 config: each row overrides the shipped config
(dizoo/classic_control/cartpole/config/cartpole_dqn_v1_config.py) in a few keys and runs the
comparison protocol's runner (benchmarks/compare/runners/ours_runner.py: 10 greedy episodes
every 1,000 env steps, CartPole-v1, one torch thread) to 475. A row that reaches 475 with every
seed in fewer env steps and less time than the shipped one is a better config to ship.

    python benchmarks/learning/dqn_cartpole_sweep.py [--seeds 0 1 2 3 4] [--rows shipped upc128 ...]
Writes benchmarks/results/dqn_cartpole_sweep.json (rows this invocation ran replace those of the
same name, so rows can be run in parts), with `tuning_seeds`: every seed any row ran, which the
comparison harness then refuses to report on (benchmarks/compare/seed_guard.py).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCHMARKS.parent))
sys.path.insert(0, str(BENCHMARKS / 'compare'))
from aggregate import first_reach, read_log  # noqa: E402

from ding.utils.fileio import atomic_write_json  # noqa: E402

OUT = BENCHMARKS / 'results' / 'dqn_cartpole_sweep.json'
THRESHOLDS = (195.0, 475.0)

# Shipped: n_sample 256, 64 updates of batch 64 per collect, lr 2e-3, eps 1 -> 0.05 over 5,000
# env steps, nstep 10, gamma 0.995, 64-64 MLP, hard target copy every 50 updates.
ROWS = {
    'shipped': {},
    'upc128': {'policy': {'learn': {'update_per_collect': 128}}},
    'eps2500': {'policy': {'other': {'eps': {'decay': 2500}}}},
    'upc128_eps2500': {'policy': {'learn': {'update_per_collect': 128}, 'other': {'eps': {'decay': 2500}}}},
    'nsample128_upc64': {'policy': {'collect': {'n_sample': 128}, 'learn': {'update_per_collect': 64}}},
    'hidden128': {'policy': {'model': {'encoder_hidden_size_list': [128, 128]}}},
}
# rl-baselines3-zoo's DQN CartPole-v1 settings, which SB3 runs in benchmarks/compare: train every
# 256 env steps with 128 updates of batch 64, lr 2.3e-3, 1-step returns at gamma 0.99, eps
# 1 -> 0.04 over 8,000 env steps, 1,000 random steps first, a 256-256 MLP. SB3 counts its
# target_update_interval (10) in env steps, and it trains between collections: the target
# is the online net as each round of 128 updates begins, so here it is copied every 128.
_ZOO = {'model': {'encoder_hidden_size_list': [256, 256]}, 'nstep': 1, 'discount_factor': 0.99,
        'random_collect_size': 1000,
        'learn': {'update_per_collect': 128, 'learning_rate': 0.0023, 'target_update_freq': 128},
        'other': {'eps': {'type': 'linear', 'start': 1.0, 'end': 0.04, 'decay': 8000}}}
ROWS.update({
    'sb3zoo': {'policy': _ZOO},
    'sb3zoo_mlp64': {'policy': dict(_ZOO, model={'encoder_hidden_size_list': [64, 64]})},
    # the config's own 10-step returns at 0.995 instead of the zoo's 1-step at 0.99
    'sb3zoo_nstep10': {'policy': {k: v for k, v in _ZOO.items() if k not in ('nstep', 'discount_factor')}},
})
# sb3zoo_nstep10 without one of its parts each
_ZOO10 = ROWS['sb3zoo_nstep10']['policy']
ROWS.update({
    'zoo10_mlp64': {'policy': dict(_ZOO10, model={'encoder_hidden_size_list': [64, 64]})},
    'zoo10_random0': {'policy': dict(_ZOO10, random_collect_size=0)},
    'zoo10_upc64': {'policy': dict(_ZOO10, learn=dict(_ZOO10['learn'], update_per_collect=64))},
    'zoo10_eps5000': {'policy': dict(_ZOO10, other={'eps': {'type': 'linear', 'start': 1.0, 'end': 0.04,
                                                             'decay': 5000}})},
})
_EPS5000 = ROWS['zoo10_eps5000']['policy']
ROWS.update({
    'zoo10_eps5000_h128': {'policy': dict(_EPS5000, model={'encoder_hidden_size_list': [128, 128]})},
    'zoo10_eps5000_upc96': {'policy': dict(_EPS5000, learn=dict(_EPS5000['learn'], update_per_collect=96))},
})


def run_seed(row: str, seed: int, work: Path) -> dict:
    out = work / f'{row}_seed{seed}.jsonl'
    cmd = [sys.executable, str(BENCHMARKS / 'compare' / 'runners' / 'ours_runner.py'), '--benchmark', 'dqn_cartpole_v1',
           '--seed', str(seed), '--out', str(out), '--torch-threads', '1', '--override', json.dumps(ROWS[row])]
    subprocess.run(cmd, check=True, cwd=BENCHMARKS.parent, stdout=subprocess.DEVNULL, timeout=1200,
                   env=dict(os.environ, PYTHONPATH=str(BENCHMARKS.parent)))
    evals = read_log(out)['evals']
    return {str(t): first_reach(evals, t) for t in THRESHOLDS}


def summarize(per_seed: dict) -> dict:
    out = {}
    for t in map(str, THRESHOLDS):
        hits = [r[t] for r in per_seed.values() if r[t] is not None]
        out[t] = {'reached': len(hits), 'seeds': len(per_seed),
                  'median_env_steps': statistics.median(h['env_steps'] for h in hits) if hits else None,
                  'median_wall_s': statistics.median(h['wall_s'] for h in hits) if hits else None,
                  'max_env_steps': max(h['env_steps'] for h in hits) if hits else None}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--seeds', nargs='+', type=int, default=[0, 1, 2, 3, 4])
    p.add_argument('--rows', nargs='+', default=list(ROWS), choices=list(ROWS))
    args = p.parse_args()
    results = json.loads(OUT.read_text()) if OUT.exists() else {'rows': {}}
    with tempfile.TemporaryDirectory() as work:
        for seed in args.seeds:  # interleaved by seed, so drifting machine load hits every row alike
            for row in args.rows:
                hit = run_seed(row, seed, Path(work))
                results['rows'].setdefault(row, {'override': ROWS[row], 'per_seed': {}})['per_seed'][str(seed)] = hit
                print(row, seed, json.dumps(hit), flush=True)
    now = datetime.now(timezone.utc).isoformat(timespec='seconds')
    for row in args.rows:
        results['rows'][row]['override'] = ROWS[row]
        results['rows'][row]['summary'] = summarize(results['rows'][row]['per_seed'])
        results['rows'][row]['generated_at'] = now  # rows run together share the machine's load
    results['generated_at'] = now
    results['tuning_seeds'] = sorted({int(s) for row in results['rows'].values() for s in row['per_seed']})
    results['protocol'] = 'benchmarks/compare/runners/ours_runner.py, CartPole-v1, one torch thread'
    atomic_write_json(str(OUT), results)
    for row in args.rows:
        print(row, json.dumps(results['rows'][row]['summary']))


if __name__ == '__main__':
    main()
