"""Make the LunarLander Decision Transformer dataset locally (nothing is downloaded): train (or
reuse) a PPO run, record episodes with its policy, and write them where
`lunarlander_dt_config` (and so DI-engine's `ding/example/dt.py`) reads them.

    python -m dizoo.box2d.lunarlander.entry.lunarlander_dt_make_dataset --episodes 1000 \
        [--run-dir lunarlander_ppo_expert] [--expert-stop-value 260] [--max-env-step 1500000] [--eps 0.0] [--out PATH]

The layout is DI-engine's for its discrete DT datasets (`dqn_data_1000eps.pkl`): a pickle of a
list of episodes, each a list of transition dicts {obs, next_obs, action, reward [1], done}.
DI-engine made its file with a DQN; here the policy is our PPO (the tuned LunarLander-v3
config), trained into `--run-dir` until its greedy evaluation reaches `--expert-stop-value`,
unless a checkpoint is already there (`ding train --algo ppo --env LunarLander-v3 --config
'{"env": {"stop_value": 260}}' --exp-name DIR` makes the same). Each step plays the greedy
action, replaced with probability `--eps` by a uniform random one.

Why 260 and not the config's 200: dt.py stops at an evaluation of 200, and a Decision
Transformer imitates its data. Measured on 2026-11-27 (seed 0): the PPO stopped at 200 gave
1,000 episodes of mean return 178; the PPO stopped at 262 (401k env steps, under a minute here)
gave a mean of 227, and dt.py on those reached 227 after 2,300 updates
(benchmarks/results/di_engine_examples_dt.json).
"""
import logging
import os
import pickle
from typing import Any, Dict, List

import numpy as np

from dizoo.box2d.lunarlander.config.lunarlander_dt_config import DATA_PATH

logger = logging.getLogger('dizoo.lunarlander.dt_dataset')


def expert_run(run_dir: str, max_env_step: int, seed: int, stop_value: float) -> str:
    """`run_dir`, training PPO into it first when it holds no checkpoint."""
    ckpt_dir = os.path.join(run_dir, 'ckpt')
    if not (os.path.isdir(ckpt_dir) and any(name.endswith('.pth.tar') for name in os.listdir(ckpt_dir))):
        from dizoo.box2d.lunarlander.entry.lunarlander_ppo_main import main as train_ppo
        train_ppo(seed=seed, max_env_step=max_env_step, exp_name=run_dir, stop_value=stop_value)
    return run_dir


def columns_to_episodes(columns: Dict[str, np.ndarray]) -> List[List[Dict[str, Any]]]:
    """DI-engine's episode lists from `ding.entry.collect.record`'s columns (episodes end at
    done or truncated)."""
    ends = np.flatnonzero(columns['done'] | columns['truncated'])
    episodes, start = [], 0
    for end in ends:
        episodes.append([{
            'obs': columns['obs'][t],
            'next_obs': columns['next_obs'][t],
            'action': np.asarray(columns['action'][t]),
            'reward': np.asarray([columns['reward'][t]], dtype=np.float32),
            'done': bool(columns['done'][t]),
        } for t in range(start, end + 1)])
        start = end + 1
    return episodes


def make_dataset(out: str = DATA_PATH, episodes: int = 1000, eps: float = 0.0, run_dir: str = 'lunarlander_ppo_expert',
                 max_env_step: int = 1_500_000, seed: int = 0, expert_stop_value: float = 260.0) -> Dict[str, Any]:
    """Write `episodes` episodes to `out`; returns {'path', 'episodes', 'transitions', 'mean_return', ...}."""
    from ding.entry.collect import record
    from ding.entry.evaluate import load_policy, make_eval_env, run_config
    from ding.utils.fileio import atomic_write_with
    from ding.utils.run_dir import policy_checkpoint
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f'eps must be in [0, 1], got {eps}')
    expert_run(run_dir, max_env_step, seed, expert_stop_value)
    cfg, ckpt = run_config(run_dir), policy_checkpoint(run_dir)
    policy, env = load_policy(cfg, ckpt), make_eval_env(cfg, render=False)
    try:
        columns = record(policy, env, episodes, eps, seed)
    finally:
        env.close()
    returns = columns.pop('episode_return')
    data = columns_to_episodes(columns)
    atomic_write_with(out, lambda f: pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL))
    info = {'path': out, 'episodes': len(data), 'transitions': len(columns['obs']),
            'mean_return': float(returns.mean()), 'min_return': float(returns.min()),
            'max_return': float(returns.max()), 'eps': eps, 'checkpoint': ckpt}
    logger.info('dataset %s', info)
    return info


def main() -> None:
    from dizoo.common.cli import run_from_command_line
    print(run_from_command_line(make_dataset, __doc__))


if __name__ == '__main__':
    main()
