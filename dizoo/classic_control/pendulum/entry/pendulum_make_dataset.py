"""Make an offline Pendulum dataset locally (nothing is downloaded): train (or load) a SAC expert,
then record episodes with it.

    python -m dizoo.classic_control.pendulum.entry.pendulum_make_dataset --kind medium \
        --episodes 50 --out pendulum_medium.hdf5

`--kind` sets how often a uniform random action replaces the expert's (`--eps` overrides it):
expert 0, medium 0.5, random 1. The expert is SAC with 128 hidden units (the model DI-engine's
`pendulum_sac_data_generation_config` loads), trained until its evaluation reaches
`--expert-return` and saved as `<expert_dir>/ckpt/final.pth.tar`; an existing checkpoint
there is reused. `--data-type` is 'hdf5' (DI-engine's columns), 'd4rl' or 'naive' (pickle).
"""
import logging
import os
from typing import Any, Dict, Optional

import numpy as np
import torch

from dizoo.classic_control.pendulum.envs.pendulum_env import make_pendulum

logger = logging.getLogger('dizoo.pendulum.dataset')
KIND_EPS = {'expert': 0.0, 'medium': 0.5, 'random': 1.0}
EXPERT_MODEL = dict(actor_head_hidden_size=128, critic_head_hidden_size=128)


def expert_checkpoint(expert_dir: str = 'pendulum_sac_seed0', seed: int = 0, expert_return: float = -200.0,
                      max_env_step: int = 20000) -> str:
    """`<expert_dir>/ckpt/final.pth.tar`, training SAC first when it is not there."""
    path = os.path.join(expert_dir, 'ckpt', 'final.pth.tar')
    if os.path.isfile(path):
        return path
    from dizoo.classic_control.pendulum.entry.pendulum_offpolicy import first_reaching, train
    history = train('sac', seed=seed, max_env_step=max_env_step, stop_value=expert_return, exp_name=expert_dir,
                    overrides={'policy': {'model': dict(EXPERT_MODEL)}}, save_cfg=False)
    reached = first_reaching(history, expert_return)
    if reached is None:
        logger.warning('the SAC expert did not reach %s in %d env steps (last evaluations: %s)', expert_return,
                       max_env_step, history[-3:])
    return path


def load_expert(ckpt: str) -> Any:
    from ding.model import ContinuousQAC
    from ding.policy import SACPolicy
    model = ContinuousQAC(obs_shape=3, action_shape=1, twin_critic=True, action_space='reparameterization',
                          **EXPERT_MODEL)
    policy = SACPolicy({'model': {}}, model=model, enable_field=['collect', 'eval'])
    policy.collect_mode.load_state_dict(torch.load(ckpt, map_location='cpu', weights_only=False))
    return policy


def record_episodes(policy: Any, episodes: int, eps: float, seed: int = 0) -> Dict[str, np.ndarray]:
    """Transitions of `episodes` Pendulum episodes: the policy's sampled action, replaced with
    probability `eps` by a uniform one in [-1, 1]. Also returns each episode's return."""
    env = make_pendulum()
    rng = np.random.default_rng(seed)
    rows: Dict[str, list] = {k: [] for k in ('obs', 'action', 'reward', 'next_obs', 'done', 'truncated')}
    returns = []
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed * 100003 + episode)
        total, finished = 0.0, False
        while not finished:
            action = policy.collect_mode.forward_batch(obs[None].astype(np.float32))['action'][0] \
                if policy is not None and rng.random() >= eps else rng.uniform(-1, 1, 1).astype(np.float32)
            next_obs, reward, terminated, truncated, _ = env.step(action)
            for k, v in zip(rows, (obs, action, reward, next_obs, terminated, truncated)):
                rows[k].append(v)
            obs, total, finished = next_obs, total + reward, terminated or truncated
        returns.append(total)
    columns = {k: np.asarray(v) for k, v in rows.items()}
    for k in ('obs', 'action', 'reward', 'next_obs'):
        columns[k] = columns[k].astype(np.float32)
    columns['done'], columns['truncated'] = columns['done'].astype(bool), columns['truncated'].astype(bool)
    columns['episode_return'] = np.asarray(returns, dtype=np.float64)
    return columns


def make_dataset(out: str, kind: str = 'medium', episodes: int = 50, eps: Optional[float] = None,
                 data_type: str = 'hdf5', seed: int = 0, expert_dir: str = 'pendulum_sac_seed0',
                 expert_return: float = -200.0) -> Dict[str, Any]:
    """Write the dataset to `out`; returns {'path', 'transitions', 'mean_return', 'eps'}."""
    from ding.data.offline_save import save_offline_data
    if kind not in KIND_EPS:
        raise ValueError(f'kind must be one of {sorted(KIND_EPS)}, got {kind!r}')
    eps = KIND_EPS[kind] if eps is None else float(eps)
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f'eps must be in [0, 1], got {eps}')
    torch.manual_seed(seed)
    policy = None if eps >= 1.0 else load_expert(expert_checkpoint(expert_dir, seed, expert_return))
    columns = record_episodes(policy, episodes, eps, seed)
    returns = columns.pop('episode_return')
    save_offline_data(columns, out, data_type)
    info = {'path': out, 'transitions': len(columns['obs']), 'mean_return': float(returns.mean()), 'eps': eps}
    logger.info('dataset %s', info)
    return info


def main() -> None:
    from dizoo.common.cli import run_from_command_line

    def from_flags(out: str = 'pendulum_medium.hdf5', kind: str = 'medium', episodes: int = 50,
                   eps: float = None, data_type: str = 'hdf5', seed: int = 0, expert_dir: str = 'pendulum_sac_seed0',
                   expert_return: float = -200.0) -> Dict[str, Any]:
        return make_dataset(out, kind, episodes, eps, data_type, seed, expert_dir, expert_return)

    print(run_from_command_line(from_flags, __doc__))


if __name__ == '__main__':
    main()
