"""MAPPO on simple_spread (3 agents): time and env steps to greedy return -130, ours vs BenchMARL.

Alternates the frameworks seed by seed in one sitting (ours seed s, then BenchMARL seed s), so
both see the same machine load; `os.getloadavg()` is recorded before and after.

    .venv/bin/python benchmarks/compare/mappo_vs_benchmarl.py [--seeds 0 1 2] [--peer-max-wall-s 240]

Ours: benchmarks/learning/mappo_simple_spread.py's `run_seed` (its default overrides, eval every 3,200 env
steps). Peer: benchmarks/compare/benchmarl_mappo.py in BenchMARL's venv (its MAPPO defaults,
eval every 6,000 frames, its smallest allowed interval). Both: 10 greedy episodes per
evaluation, 1 torch thread, CPU, wall time from just before training starts (after model
construction) with evaluations included, return in ding's team metric (the peer script's
docstring derives it; `check_our_metric` checks ours against DI-engine's definition).
A run that misses the threshold within its budget counts as a lower bound (its total wall time
and frames), so the ratio ours/peer is then an upper bound.
Writes benchmarks/results/mappo_vs_benchmarl.json.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / 'benchmarks' / 'learning'))
from mappo_simple_spread import DEFAULT_OVERRIDES, run_seed as run_ours  # noqa: E402

from ding.utils.fileio import atomic_write_json  # noqa: E402
from dizoo.petting_zoo.envs.petting_zoo_simple_spread_env import PettingZooEnv  # noqa: E402

PEER_PYTHON = '/work/peers/benchmarl/bin/python'
PEER_SCRIPT = REPO / 'benchmarks' / 'compare' / 'benchmarl_mappo.py'


def check_our_metric(seed: int = 3) -> float:
    """Largest gap between ding's env return and DI-engine's definition sum_i (g + l_i) on one
    random episode, replayed on a bare mpe2 env with the same seed and actions."""
    from mpe2 import simple_spread_v3
    ours = PettingZooEnv({'n_agent': 3, 'max_cycles': 25})
    ours.seed(seed, dynamic_seed=False)
    ours.reset()
    bare = simple_spread_v3.parallel_env(N=3, local_ratio=0.5, max_cycles=25, continuous_actions=False)
    bare.reset(seed=seed)
    raw = bare.unwrapped
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(25):
        action = rng.integers(5, size=3)
        reward = float(ours.step(action).reward[0])
        bare.step({a: int(action[i]) for i, a in enumerate(bare.possible_agents)})
        g = raw.scenario.global_reward(raw.world)
        definition = sum(g + raw.scenario.reward(agent, raw.world) for agent in raw.world.agents)
        worst = max(worst, abs(reward - definition))
    ours.close()
    return worst


def run_peer(seed: int, args, overrides=()) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'peer.json')
        cmd = [PEER_PYTHON, str(PEER_SCRIPT), '--seed', str(seed), '--threshold', str(args.threshold),
               '--max-frames', str(args.peer_max_frames), '--max-wall-s', str(args.peer_max_wall_s),
               '--eval-episodes', str(args.eval_episodes), '--threads', str(args.threads), '--out', out]
        if overrides:
            cmd += ['--set', *overrides]
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=args.peer_max_wall_s + 600)
        if proc.returncode != 0:
            raise RuntimeError(f'BenchMARL run failed (rc {proc.returncode}):\n{proc.stderr[-3000:]}')
        with open(out) as f:
            return json.load(f)


def to_threshold(run: dict) -> dict:
    """wall s and env steps to the threshold, or the run's totals as a lower bound."""
    if run['reached']:
        return {'reached': True, 'wall_s': run['wall_s'], 'env_steps': run['env_steps']}
    return {'reached': False, 'wall_s_lower_bound': run['total_wall_s'], 'env_steps_lower_bound': run['evals'][-1][0]}


def median_of(rows, key):
    return statistics.median(r.get(key, r.get(key + '_lower_bound')) for r in rows)


def add_sensitivity(args) -> None:
    with open(args.out) as f:
        result = json.load(f)
    load_start = os.getloadavg()
    for seed in args.seeds:
        run = run_peer(seed, args, args.peer_sensitivity)
        entry = dict(seed=seed, overrides=run['overrides'], loadavg_start=load_start, loadavg_end=os.getloadavg(),
                     **to_threshold(run), curve=run['evals'])
        print(f'benchmarl {entry["overrides"]} seed {seed}: {to_threshold(run)} last evals {run["evals"][-2:]}')
        result.setdefault('benchmarl_sensitivity', []).append(entry)
    atomic_write_json(args.out, result)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2])
    parser.add_argument('--threshold', type=float, default=-130.0)
    parser.add_argument('--max-env-step', type=int, default=400_000, help='ours')
    parser.add_argument('--peer-max-frames', type=int, default=600_000)
    parser.add_argument('--peer-max-wall-s', type=float, default=240.0)
    parser.add_argument('--eval-every', type=int, default=3200, help='ours')
    parser.add_argument('--eval-episodes', type=int, default=10)
    parser.add_argument('--threads', type=int, default=1)
    parser.add_argument('--out', default=str(REPO / 'benchmarks/results/mappo_vs_benchmarl.json'))
    parser.add_argument('--peer-sensitivity', nargs='+', metavar='KEY=VALUE',
                        help='only run BenchMARL with these ExperimentConfig overrides for --seeds and add the '
                             'runs to the existing --out under benchmarl_sensitivity (the ratio is untouched)')
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.peer_sensitivity:
        add_sensitivity(args)
        return
    metric_err = check_our_metric()
    if metric_err > 1e-4:
        raise RuntimeError(f"ding's simple_spread return differs from DI-engine's definition by {metric_err}")
    load_start, t_start = os.getloadavg(), time.time()
    ours, peer = [], []
    for seed in args.seeds:
        ours.append(run_ours(seed, args, dict(DEFAULT_OVERRIDES)))
        print(f'ours seed {seed}: {to_threshold(ours[-1])}', flush=True)
        peer.append(run_peer(seed, args))
        print(f'benchmarl seed {seed}: {to_threshold(peer[-1])} last evals {peer[-1]["evals"][-2:]}', flush=True)
    ours_rows = [dict(seed=r['seed'], **to_threshold(r)) for r in ours]
    peer_rows = [dict(seed=r['seed'], **to_threshold(r)) for r in peer]
    ours_wall, peer_wall = median_of(ours_rows, 'wall_s'), median_of(peer_rows, 'wall_s')
    ours_steps, peer_steps = median_of(ours_rows, 'env_steps'), median_of(peer_rows, 'env_steps')
    all_ours, all_peer = all(r['reached'] for r in ours_rows), all(r['reached'] for r in peer_rows)
    result = {
        'benchmark': f'MAPPO simple_spread (N=3, local_ratio 0.5, 25 steps, discrete) to greedy return '
                     f'{args.threshold} in ding team metric (2 x sum of mpe2 per-agent rewards)',
        'seeds': args.seeds,
        'threads': args.threads,
        'loadavg_start': load_start,
        'loadavg_end': os.getloadavg(),
        'sitting_wall_s': round(time.time() - t_start, 1),
        'metric_check_max_abs_err_ours': metric_err,
        'metric_check_max_abs_err_peer': peer[0].get('metric_check_max_abs_err'),
        'ours': {'config': 'dizoo ptz_simple_spread_mappo_config', 'overrides': DEFAULT_OVERRIDES,
                 'eval_every_env_steps': args.eval_every, 'eval_episodes': args.eval_episodes,
                 'max_env_step': args.max_env_step, 'per_seed': ours_rows,
                 'median_wall_s': ours_wall, 'median_env_steps': ours_steps, 'all_reached': all_ours},
        'benchmarl': {'version': '1.5.2', 'hyperparameters': peer[0]['hyperparameters'],
                      'task_config': peer[0]['task_config'], 'eval_every_frames': 6000,
                      'eval_episodes': args.eval_episodes,
                      'budget': {'frames': args.peer_max_frames, 'wall_s': args.peer_max_wall_s},
                      'per_seed': peer_rows, 'all_reached': all_peer,
                      'median_wall_s' if all_peer else 'median_wall_s_lower_bound': peer_wall,
                      'median_env_steps' if all_peer else 'median_env_steps_lower_bound': peer_steps},
        # < when the peer missed the threshold (its figure is a lower bound)
        'ratio_ours_over_peer_median_wall': {'value': round(ours_wall / peer_wall, 4),
                                             'bound': '=' if all_peer and all_ours else ('<' if all_ours else '?')},
        'ratio_ours_over_peer_median_env_steps': round(ours_steps / peer_steps, 4),
        'curves': {'ours': {r['seed']: r['evals'] for r in ours}, 'benchmarl': {r['seed']: r['evals'] for r in peer},
                   'format': '(env_steps, train_iter, wall_s, mean greedy return)'},
    }
    atomic_write_json(args.out, result)
    print(json.dumps({k: result[k] for k in ('loadavg_start', 'loadavg_end', 'ratio_ours_over_peer_median_wall',
                                             'ratio_ours_over_peer_median_env_steps')}))


if __name__ == '__main__':
    main()
