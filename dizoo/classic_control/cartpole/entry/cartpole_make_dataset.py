"""Make an offline CartPole-v0 dataset locally (nothing is downloaded): train (or load) a DQN
expert with `cartpole_dqn_main`, then record episodes with it.

    python -m dizoo.classic_control.cartpole.entry.cartpole_make_dataset --episodes 20 --eps 0.2 \
        --out cartpole_expert.hdf5

With probability `--eps` a uniform random action replaces the expert's greedy one. The expert
checkpoint is `<expert_dir>/ckpt/final.pth.tar`; an existing one is reused. `--data-type` is
'hdf5' (DI-engine's columns), 'd4rl' or 'naive' (pickle).
"""
import logging
import os
from typing import Any, Dict

import numpy as np
import torch

logger = logging.getLogger('dizoo.cartpole.dataset')


def expert_checkpoint(expert_dir: str = 'cartpole_dqn_seed0', seed: int = 0, max_env_step: int = 100000) -> str:
    path = os.path.join(expert_dir, 'ckpt', 'final.pth.tar')
    if not os.path.isfile(path):
        from dizoo.classic_control.cartpole.entry.cartpole_dqn_main import main
        main(seed=seed, config='v0', max_env_step=max_env_step, exp_name=expert_dir)
    return path


def load_expert(ckpt: str) -> Any:
    from ding.model import DQN
    from ding.policy import DQNPolicy
    from dizoo.classic_control.cartpole.config.cartpole_dqn_config import main_config
    policy = DQNPolicy({'model': {}}, model=DQN(**main_config.policy.model), enable_field=['eval'])
    policy.eval_mode.load_state_dict(torch.load(ckpt, map_location='cpu', weights_only=False))
    return policy


def record_episodes(policy: Any, episodes: int, eps: float, seed: int = 0) -> Dict[str, np.ndarray]:
    """Transitions of `episodes` CartPole-v0 episodes (greedy expert, or uniform with prob. eps)."""
    import warnings

    import gymnasium
    with warnings.catch_warnings():  # gymnasium flags v0 as outdated; it is the one DI-engine uses
        warnings.simplefilter('ignore', DeprecationWarning)
        env = gymnasium.make('CartPole-v0')
    rng = np.random.default_rng(seed)
    rows: Dict[str, list] = {k: [] for k in ('obs', 'action', 'reward', 'next_obs', 'done', 'truncated')}
    returns = []
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed * 100003 + episode)
        total, finished = 0.0, False
        while not finished:
            greedy = policy is not None and rng.random() >= eps
            action = int(policy.eval_mode.forward_batch(obs[None].astype(np.float32))['action'][0]) if greedy \
                else int(rng.integers(2))
            next_obs, reward, terminated, truncated, _ = env.step(action)
            for k, v in zip(rows, (obs, action, reward, next_obs, terminated, truncated)):
                rows[k].append(v)
            obs, total, finished = next_obs, total + reward, terminated or truncated
        returns.append(total)
    columns = {k: np.asarray(v) for k, v in rows.items()}
    for k in ('obs', 'reward', 'next_obs'):
        columns[k] = columns[k].astype(np.float32)
    columns['action'] = columns['action'].astype(np.int64)
    columns['done'], columns['truncated'] = columns['done'].astype(bool), columns['truncated'].astype(bool)
    columns['episode_return'] = np.asarray(returns, dtype=np.float64)
    return columns


def make_dataset(out: str, episodes: int = 20, eps: float = 0.2, data_type: str = 'hdf5', seed: int = 0,
                 expert_dir: str = 'cartpole_dqn_seed0') -> Dict[str, Any]:
    """Write the dataset to `out`; returns {'path', 'transitions', 'mean_return', 'eps'}."""
    from ding.data.offline_save import save_offline_data
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f'eps must be in [0, 1], got {eps}')
    policy = None if eps >= 1.0 else load_expert(expert_checkpoint(expert_dir, seed))
    columns = record_episodes(policy, episodes, eps, seed)
    returns = columns.pop('episode_return')
    save_offline_data(columns, out, data_type)
    info = {'path': out, 'transitions': len(columns['obs']), 'mean_return': float(returns.mean()), 'eps': eps}
    logger.info('dataset %s', info)
    return info


def main() -> None:
    from dizoo.common.cli import run_from_command_line

    def from_flags(out: str = 'cartpole_expert.hdf5', episodes: int = 20, eps: float = 0.2, data_type: str = 'hdf5',
                   seed: int = 0, expert_dir: str = 'cartpole_dqn_seed0') -> Dict[str, Any]:
        return make_dataset(out, episodes, eps, data_type, seed, expert_dir)

    print(run_from_command_line(from_flags, __doc__))


if __name__ == '__main__':
    main()
