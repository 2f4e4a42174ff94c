"""MAPPO on simple_spread (3 agents): time and env steps to greedy return -130, ours against
BenchMARL, under the comparison protocol (benchmarks/compare/README.md).

    python benchmarks/compare/mappo_vs_benchmarl.py [--seeds 1000 1001 1002] [--max-env-step 300000]

Ours: benchmarks/learning/mappo_simple_spread.py's `run_seed` (its default overrides, eval every 3,200
env steps). Peer: benchmarks/compare/benchmarl_mappo.py in BenchMARL's venv (`venvs.py benchmarl`; its
MAPPO defaults, eval every 6,000 frames, its smallest allowed interval). Both: the same env-step budget,
10 greedy episodes per evaluation, 1 torch thread, CPU, wall time from just before training starts
(after model construction) with evaluations included, return in ding's team metric (the peer script's
docstring derives it; `check_our_metric` checks ours against DI-engine's definition). The frameworks
alternate seed by seed in one sitting. A run ends at the threshold or at the budget ("not reached in N
env steps" is its result); the peer's wall cap is a safety net sized not to bind, and a run it stops
gets no ratio. Seeds: 1000 and up (`seed_guard.py`); `--tuning` allows the tuning seeds.
Writes benchmarks/results/mappo_vs_benchmarl.json, with the table row under `markdown`.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / 'benchmarks' / 'learning'))
sys.path.insert(0, str(REPO / 'benchmarks' / 'compare'))
sys.path.insert(0, str(REPO / 'benchmarks' / 'compare' / 'runners'))  # report_table reads benchmark_specs
from aggregate import summarize_threshold  # noqa: E402
from mappo_simple_spread import DEFAULT_OVERRIDES, run_seed as run_ours  # noqa: E402
from report_table import format_cell, format_ratio  # noqa: E402

from ding.utils.fileio import atomic_write_json  # noqa: E402
from dizoo.petting_zoo.envs.petting_zoo_simple_spread_env import PettingZooEnv  # noqa: E402

PEER_SCRIPT = REPO / 'benchmarks' / 'compare' / 'benchmarl_mappo.py'
# Ours at BenchMARL's network sizes (its MLP [256, 256] for actor and critic; ours: actor 3 x 256, critic
# 2 x 512): an encoder layer and one head layer of 256 each. The activation stays ours (ReLU; BenchMARL: tanh).
PEER_NET = {'model.actor_head_hidden_size': 256, 'model.actor_head_layer_num': 1,
            'model.critic_head_hidden_size': 256, 'model.critic_head_layer_num': 1}


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


def run_peer(peer_python: str, seed: int, args) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'peer.json')
        cmd = [peer_python, str(PEER_SCRIPT), '--seed', str(seed), '--threshold', str(args.threshold),
               '--max-frames', str(args.max_env_step), '--max-wall-s', str(args.peer_max_wall_s),
               '--eval-episodes', str(args.eval_episodes), '--threads', str(args.threads), '--out', out]
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=args.peer_max_wall_s + 600)
        if proc.returncode != 0:
            raise RuntimeError(f'BenchMARL run failed (rc {proc.returncode}):\n{proc.stderr[-3000:]}')
        with open(out) as f:
            return json.load(f)


def as_log(run: dict, stop: str) -> dict:
    """A run as the comparison reads runner logs (aggregate.read_log): its evaluations and how it ended."""
    evals = [{'env_steps': steps, 'wall_s': wall, 'mean_return': ret} for steps, _, wall, ret in run['evals']]
    return {'evals': evals, 'end': {'reason': stop, 'env_steps': evals[-1]['env_steps'] if evals else 0,
                                    'wall_s': run.get('total_wall_s')}}


def markdown(result: dict) -> str:
    """The table row: each column's median time and env steps to the threshold, and ours over BenchMARL."""
    summary, budget = result['summary'], result['max_env_step']
    capped = any(summary[name]['wall_capped'] for name in summary)

    def ratio(name: str) -> str:
        ours, peer = summary[name]['median_wall_s'], summary['benchmarl']['median_wall_s']
        return format_ratio(None if ours is None or peer is None else ours / peer, capped)
    return '\n'.join([
        '| benchmark | threshold | ding (ours) | ding (ours), BenchMARL\'s network sizes | BenchMARL | ours / BenchMARL '
        '| ours at its sizes / BenchMARL |', '|---|---|---|---|---|---|---|',
        f"| MAPPO simple_spread (3 agents, 25 steps) | {result['threshold']:g} | {format_cell(summary['ours'], budget)} | "
        f"{format_cell(summary['ours_peer_net'], budget)} | {format_cell(summary['benchmarl'], budget)} | "
        f"{ratio('ours')} | {ratio('ours_peer_net')} |",
        '', f"Seeds {', '.join(map(str, result['seeds']))}; each framework runs to the threshold or {budget:,} env "
            f"steps, evaluations included in the wall time. Networks: ours an actor of 3 x 256 and a critic of 2 x 512 "
            f"(ReLU); at BenchMARL's sizes 2 x 256 each (ReLU); BenchMARL 2 x 256 each (tanh)."])


def main() -> None:
    from seed_guard import refuse_before_running
    from venvs import DEFAULT_VENV_ROOT, ensure_venv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seeds', type=int, nargs='+', default=[1000, 1001, 1002])
    parser.add_argument('--tuning', action='store_true', help='seeds below 1000 allowed (never for a published table)')
    parser.add_argument('--threshold', type=float, default=-130.0)
    parser.add_argument('--max-env-step', type=int, default=300_000, help='the env-step budget of both frameworks')
    parser.add_argument('--peer-max-wall-s', type=float, default=3 * 3600.0, help='a safety cap, sized not to bind')
    parser.add_argument('--eval-every', type=int, default=3200, help='ours')
    parser.add_argument('--eval-episodes', type=int, default=10)
    parser.add_argument('--threads', type=int, default=1)
    parser.add_argument('--out', default=str(REPO / 'benchmarks/results/mappo_vs_benchmarl.json'))
    args = parser.parse_args()
    refuse_before_running(parser, args.seeds, args.tuning)
    torch.set_num_threads(args.threads)
    metric_err = check_our_metric()
    if metric_err > 1e-4:
        raise RuntimeError(f"ding's simple_spread return differs from DI-engine's definition by {metric_err}")
    peer_python = str(ensure_venv(DEFAULT_VENV_ROOT, 'benchmarl'))
    load_start, t_start = os.getloadavg(), time.time()
    ours, ours_peer_net, peer = {}, {}, {}
    for seed in args.seeds:
        ours[seed] = run_ours(seed, args, dict(DEFAULT_OVERRIDES))
        print(f"ours seed {seed}: reached={ours[seed]['reached']} last evals {ours[seed]['evals'][-2:]}", flush=True)
        ours_peer_net[seed] = run_ours(seed, args, dict(DEFAULT_OVERRIDES, **PEER_NET))
        print(f"ours at BenchMARL's sizes seed {seed}: reached={ours_peer_net[seed]['reached']}", flush=True)
        peer[seed] = run_peer(peer_python, seed, args)
        print(f"benchmarl seed {seed}: {peer[seed].get('stop')} last evals {peer[seed]['evals'][-2:]}", flush=True)
    ours_logs = {s: as_log(r, 'threshold' if r['reached'] else 'env_step_budget') for s, r in ours.items()}
    peer_net_logs = {s: as_log(r, 'threshold' if r['reached'] else 'env_step_budget') for s, r in ours_peer_net.items()}
    peer_logs = {s: as_log(r, r.get('stop', 'no_end_record')) for s, r in peer.items()}
    first = next(iter(peer.values()))
    result = {
        'benchmark': f'MAPPO simple_spread (N=3, local_ratio 0.5, 25 steps, discrete) to greedy return '
                     f'{args.threshold} in ding team metric (2 x sum of mpe2 per-agent rewards)',
        'threshold': args.threshold, 'seeds': args.seeds, 'max_env_step': args.max_env_step, 'threads': args.threads,
        'loadavg_start': load_start, 'loadavg_end': os.getloadavg(), 'sitting_wall_s': round(time.time() - t_start, 1),
        'metric_check_max_abs_err_ours': metric_err,
        'metric_check_max_abs_err_peer': first.get('metric_check_max_abs_err'),
        'ours': {'config': 'dizoo ptz_simple_spread_mappo_config', 'overrides': DEFAULT_OVERRIDES,
                 'peer_net_overrides': PEER_NET, 'eval_every_env_steps': args.eval_every,
                 'eval_episodes': args.eval_episodes},
        'benchmarl': {'version': '1.5.2', 'hyperparameters': first['hyperparameters'],
                      'task_config': first['task_config'], 'eval_every_frames': 6000,
                      'eval_episodes': args.eval_episodes, 'wall_cap_s': args.peer_max_wall_s},
        'summary': {'ours': summarize_threshold(ours_logs, args.threshold),
                    'ours_peer_net': summarize_threshold(peer_net_logs, args.threshold),
                    'benchmarl': summarize_threshold(peer_logs, args.threshold)},
        'runs_end': {'benchmarl': {s: {'stop': r.get('stop'), 'total_wall_s': r.get('total_wall_s')}
                                   for s, r in peer.items()}},
        'curves': {'ours': {s: r['evals'] for s, r in ours.items()},
                   'ours_peer_net': {s: r['evals'] for s, r in ours_peer_net.items()},
                   'benchmarl': {s: r['evals'] for s, r in peer.items()},
                   'format': '(env_steps, train_iter, wall_s, mean greedy return)'},
    }
    result['markdown'] = markdown(result)
    atomic_write_json(args.out, result)
    print(result['markdown'])


if __name__ == '__main__':
    main()
