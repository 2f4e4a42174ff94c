"""The sweep behind dizoo's PPO CartPole config: each row overrides the shipped config
(dizoo/classic_control/cartpole/config/cartpole_ppo_config.py) in one or two keys and runs the
protocol of `ppo_cartpole.py` (CartPole-v1 to 475, 10 greedy episodes every 1,000 env steps).
The shipped row should reach 475 with every seed in the fewest env steps; a neighbour that does
better with every seed is a better config to ship.

    python benchmarks/learning/ppo_cartpole_sweep.py [--seeds 0 1 2 3 4 5] [--rows shipped lr_decay_1000 ...]
    python benchmarks/learning/ppo_cartpole_sweep.py --protocol --seeds 60 61 ... --rows lr_5e-3 ...
`--protocol` runs each seed through the comparison's own runner (benchmarks/compare/runners/ours_runner.py:
its evaluator, timing and process per run) and stores the row as `protocol:<row>`, so that rows can
be chosen by the wall time the comparison reports, on tuning seeds.
Writes benchmarks/results/ppo_cartpole_sweep.json (rows this invocation ran replace those of the same
name, so rows can be run in parts), with `tuning_seeds`: every seed any row ran, which the
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

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from machine_load import CpuTimes  # noqa: E402
from ppo_cartpole import THRESHOLD, run_seed  # noqa: E402

COMPARE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'compare')
sys.path.append(COMPARE)  # the comparison's log reader, for --protocol
from aggregate import first_reach, read_log  # noqa: E402

import torch  # noqa: E402

from ding.utils.fileio import atomic_write_json  # noqa: E402

OUT = 'benchmarks/results/ppo_cartpole_sweep.json'

# Each row overrides the shipped config, and spells out what it changed from the config shipped
# when the row was swept:
# - OLD (until 2026-11-29): 512 per collect, 5 epochs of batch 256, lr 1e-3 decayed linearly to 0
#   over 3,000 updates; swept on seeds 0-19 (some rows 0-5);
# - ZOO (2026-11-29): RL Zoo's CartPole recipe, the row n256_epochs20_decay7800 at lr 1e-3, chosen on
#   seeds 0-19; its neighbours (zoo_*, lr_*) swept on seeds 20-59 on 2026-11-30;
# - 'shipped' since 2026-11-30: ZOO at lr 3e-3, the row lr_3e-3 (least median env steps on seeds
#   20-59, and least median time on seeds 60-71 by the comparison's runner: rows protocol:*).
OLD = {'collect.n_sample': 512, 'learn.epoch_per_collect': 5, 'learn.lr_decay_iters': 3000, 'learn.learning_rate': 1e-3}
ZOO = {'learn.learning_rate': 1e-3}
ROWS = {
    'shipped': {},
    'old': OLD,
    'no_lr_decay': {**OLD, 'learn.lr_decay_iters': None},
    'lr_decay_1000': {**OLD, 'learn.lr_decay_iters': 1000},
    'lr_decay_2000': {**OLD, 'learn.lr_decay_iters': 2000},
    'lr_2e-3': {**OLD, 'learn.learning_rate': 2e-3},
    'n_sample_256': {**OLD, 'collect.n_sample': 256},
    'epochs_10': {**OLD, 'learn.epoch_per_collect': 10},
    'batch_128': {**OLD, 'learn.batch_size': 128},
    'batch_512': {**OLD, 'learn.batch_size': 512},
    # more updates per env step (RL Zoo's CartPole PPO: 256 per rollout, 20 epochs of one minibatch)
    'n256_epochs20': {**OLD, 'collect.n_sample': 256, 'learn.epoch_per_collect': 20},
    # the same with the lr annealed over RL Zoo's 100k env steps (7,800 updates) instead of ~38k: ZOO
    'n256_epochs20_decay7800': {**OLD, 'collect.n_sample': 256, 'learn.epoch_per_collect': 20,
                                'learn.lr_decay_iters': 7800},
    'n256_epochs10': {**OLD, 'collect.n_sample': 256, 'learn.epoch_per_collect': 10},
    'n512_epochs10_batch128': {**OLD, 'learn.epoch_per_collect': 10, 'learn.batch_size': 128},
    'n256_epochs10_batch128': {**OLD, 'collect.n_sample': 256, 'learn.epoch_per_collect': 10, 'learn.batch_size': 128},
    'zoo': ZOO,
    # ZOO with SB3's (RL Zoo's) network: two hidden layers of 64 per branch, not three
    'zoo_2x64': {**ZOO, 'model.actor_head_layer_num': 0, 'model.critic_head_layer_num': 0},
    # around ZOO (2026-11-30): fewer env steps to 475 is what the comparison with SB3 needed (0.75x at
    # 10.2k env steps on held-out seeds against SB3's 8k)
    'zoo_lr_2e-3': {'learn.learning_rate': 2e-3},
    'lr_3e-3': {'learn.learning_rate': 3e-3},
    'lr_5e-3': {'learn.learning_rate': 5e-3},
    'zoo_epochs_30': {**ZOO, 'learn.epoch_per_collect': 30},
    'zoo_batch_128': {**ZOO, 'learn.batch_size': 128},
    'zoo_batch_128_epochs_10': {**ZOO, 'learn.batch_size': 128, 'learn.epoch_per_collect': 10},
    'zoo_n128_batch128': {**ZOO, 'collect.n_sample': 128, 'learn.batch_size': 128},
    'zoo_n128_batch128_epochs10': {**ZOO, 'collect.n_sample': 128, 'learn.batch_size': 128,
                                   'learn.epoch_per_collect': 10},
    'zoo_clip_0.3': {**ZOO, 'learn.clip_ratio': 0.3},
    'zoo_lambda_0.95_gamma_0.99': {**ZOO, 'collect.gae_lambda': 0.95, 'collect.discount_factor': 0.99},
    'zoo_decay_3900': {**ZOO, 'learn.lr_decay_iters': 3900},
    'lr_3e-3_epochs_30': {'learn.learning_rate': 3e-3, 'learn.epoch_per_collect': 30},
    'lr_3e-3_decay_3900': {'learn.learning_rate': 3e-3, 'learn.lr_decay_iters': 3900},
    'n128_batch128_lr_3e-3': {'collect.n_sample': 128, 'learn.batch_size': 128, 'learn.learning_rate': 3e-3},
    'n128_batch128_epochs10_lr_3e-3': {'collect.n_sample': 128, 'learn.batch_size': 128,
                                       'learn.epoch_per_collect': 10, 'learn.learning_rate': 3e-3},
    # rows above with SB3's network (2 hidden layers of 64 per branch, not 3), swept on seeds 20-59 after
    # the held-out sitting of 2026-11-30, where ours at SB3's sizes took 7.2k env steps against 10.2k; a
    # default has to win on tuning seeds first. None beat its 3-layer row (wall_s: the machine was busy)
    'lr_3e-3_2x64': {'learn.learning_rate': 3e-3, 'model.actor_head_layer_num': 0, 'model.critic_head_layer_num': 0},
    'lr_5e-3_2x64': {'learn.learning_rate': 5e-3, 'model.actor_head_layer_num': 0, 'model.critic_head_layer_num': 0},
    'lr_2e-3_2x64': {'learn.learning_rate': 2e-3, 'model.actor_head_layer_num': 0, 'model.critic_head_layer_num': 0},
    'n128_batch128_lr_3e-3_2x64': {'collect.n_sample': 128, 'learn.batch_size': 128, 'learn.learning_rate': 3e-3,
                                   'model.actor_head_layer_num': 0, 'model.critic_head_layer_num': 0},
}


def run_seed_in_protocol(seed: int, max_env_step: int, overrides: dict) -> dict:
    """One run of the comparison's PPO CartPole-v1 benchmark by our runner, with `overrides`."""
    nested: dict = {}
    for dotted, value in overrides.items():
        node = nested.setdefault('policy', {})
        *path, last = dotted.split('.')
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'log.jsonl')
        subprocess.run([sys.executable, os.path.join(COMPARE, 'runners', 'ours_runner.py'), '--benchmark',
                        'ppo_cartpole_v1', '--seed', str(seed), '--out', log, '--max-env-steps', str(max_env_step),
                        '--torch-threads', '1', '--override', json.dumps(nested)], check=True,
                       stdout=subprocess.DEVNULL)
        run = read_log(log)
    hit = first_reach(run['evals'], THRESHOLD)
    return dict(seed=seed, reached=hit is not None, env_steps=hit and int(hit['env_steps']),
                wall_s=hit and hit['wall_s'], eval_s=(run['end'] or {}).get('eval_s'))


def summarise(runs: list) -> dict:
    every = all(r['reached'] for r in runs)
    return dict(all_reached=every,
                median_env_steps=statistics.median(r['env_steps'] for r in runs) if every else None,
                median_wall_s=round(statistics.median(r['wall_s'] for r in runs), 2) if every else None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2, 3, 4, 5])
    parser.add_argument('--rows', nargs='+', choices=sorted(ROWS), default=list(ROWS))
    parser.add_argument('--max-env-step', type=int, default=200_000)
    parser.add_argument('--out', default=OUT)
    parser.add_argument('--protocol', action='store_true', help="time runs with the comparison's runner")
    args = parser.parse_args()
    torch.set_num_threads(1)

    result = {}
    if os.path.exists(args.out):
        with open(args.out) as f:
            result = json.load(f)
    if not isinstance(result.get('rows'), dict):  # an older, hand-assembled file: replaced
        result = {'rows': {}}
    result['note'] = ('PPO CartPole-v1 to 475 within 200k env steps, overrides of the shipped config; '
                      'written by benchmarks/learning/ppo_cartpole_sweep.py. Env steps decide between rows; '
                      'wall_s depends on machine load (cpu: busy/idle/steal fractions during the row).')
    for name in args.rows:
        with CpuTimes() as cpu:
            run = run_seed_in_protocol if args.protocol else run_seed
            runs = [run(seed, args.max_env_step, ROWS[name]) for seed in args.seeds]
        for r in runs:
            r.pop('evals', None)
            r['wall_s'] = round(r.get('wall_s', float('nan')), 2) if r['reached'] else None
        row = dict(overrides=ROWS[name], date=datetime.now(timezone.utc).isoformat(timespec='seconds'),
                   cpu=cpu.fractions, runs=runs, **summarise(runs))
        print(name, json.dumps({k: v for k, v in row.items() if k != 'runs'}), flush=True)
        result['rows'][f'protocol:{name}' if args.protocol else name] = row
        result['tuning_seeds'] = sorted({r['seed'] for row in result['rows'].values() for r in row['runs']})
        atomic_write_json(args.out, result)


if __name__ == '__main__':
    main()
