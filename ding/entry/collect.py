"""`ding collect RUN_DIR --episodes N --eps E --out PATH [--data-type hdf5|d4rl|naive|minari]`: make an
offline dataset with a trained run's policy (its best checkpoint, or the one given).

Each step plays the policy's greedy action, replaced with probability `--eps` by a uniform
random one from the env's action space (eps 0: the expert; 0.5: a "medium" dataset; 1: random).
The file holds obs, action, reward, next_obs, done (terminated) and truncated, as
hdf5 columns, D4RL's layout or a pickle, and is written atomically; `create_dataset` and
`ding -m serial_offline` read it back.
"""
import argparse
import os
from contextlib import closing
from typing import Any, Dict, List, Optional

import numpy as np

from ding.entry.arguments import UsageError, positive_int, seed_value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('path', help='a run directory or a checkpoint file inside one (ckpt/*.pth.tar)')
    parser.add_argument('--episodes', type=positive_int, default=10)
    parser.add_argument('--eps', type=float, default=0.0, help='probability of a uniform random action (0 to 1)')
    parser.add_argument('--out', required=True, help='the dataset file to write (.hdf5, or .pkl for naive)')
    parser.add_argument('--data-type', default='hdf5', choices=('hdf5', 'd4rl', 'naive', 'minari'))
    parser.add_argument('--seed', type=seed_value, default=None, help='env seed (default: the run\'s seed)')


def record(policy: Any, env: Any, episodes: int, eps: float, seed: int) -> Dict[str, np.ndarray]:
    """Columns of `episodes` episodes plus `episode_return` (one per episode)."""
    rng = np.random.default_rng(seed)
    env.seed(seed, dynamic_seed=True)
    env.action_space.seed(seed)
    rows: Dict[str, List[Any]] = {k: [] for k in ('obs', 'action', 'reward', 'next_obs', 'done', 'truncated')}
    returns = []
    for _ in range(episodes):
        obs = env.reset()
        policy.eval_mode.reset()
        total, ended = 0.0, False
        while not ended:
            greedy = policy.eval_mode.forward_batch(np.asarray(obs)[None])['action'][0]
            action = np.asarray(env.action_space.sample(), dtype=greedy.dtype) if rng.random() < eps else greedy
            timestep = env.step(action)
            truncated = bool(timestep.info.get('truncated', False))  # a time limit, not a terminal state
            for key, value in zip(rows, (obs, action, np.asarray(timestep.reward).reshape(()), timestep.obs,
                                         timestep.done and not truncated, truncated)):
                rows[key].append(value)
            obs, ended = timestep.obs, timestep.done
            total += float(np.asarray(timestep.reward).sum())
        returns.append(total)
    columns = {k: np.asarray(v) for k, v in rows.items()}
    columns['episode_return'] = np.asarray(returns)
    return columns


def collect(path: str, out: str, episodes: int = 10, eps: float = 0.0, data_type: str = 'hdf5',
            seed: Optional[int] = None) -> Dict[str, Any]:
    from ding.data.offline_save import save_offline_data
    from ding.entry.evaluate import load_policy, make_eval_env, run_config
    from ding.utils.run_dir import policy_checkpoint, run_dir_of
    if not 0.0 <= eps <= 1.0:
        raise UsageError(f'--eps must be in [0, 1], got {eps}')
    run_dir = run_dir_of(path)
    if run_dir is None:
        raise FileNotFoundError(f'{path} is not a run directory or a checkpoint inside one')
    cfg = run_config(run_dir)
    ckpt = policy_checkpoint(path)
    policy = load_policy(cfg, ckpt)
    with closing(make_eval_env(cfg, render=False)) as env:
        columns = record(policy, env, episodes, eps, cfg.seed if seed is None else seed)
    returns = columns.pop('episode_return')
    written = save_offline_data(columns, out, data_type)
    return {'path': written, 'transitions': len(columns['obs']), 'episodes': episodes,
            'mean_return': float(returns.mean()), 'eps': eps, 'checkpoint': os.path.relpath(ckpt)}


def main(args: argparse.Namespace) -> int:
    info = collect(args.path, args.out, args.episodes, args.eps, args.data_type, args.seed)
    print(' '.join(f'{k}={v:.2f}' if isinstance(v, float) else f'{k}={v}' for k, v in info.items()))
    return 0
