"""Make the local dataset of a D4RL env id (nothing is downloaded):

    python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id hopper-medium-v2 [--episodes 100]

The env id's middle part picks the behaviour, D4RL's way: 'random' plays uniform actions;
'medium' and 'expert' play the sampled actions of our SAC trained on the MuJoCo env for
`--train-steps` env steps (defaults 100k and 1M: D4RL's "medium" is a policy stopped part way).
The SAC run lives in `--sac-dir` (reused when its `ckpt/final.pth.tar` exists). The file is
D4RL's hdf5 layout at `d4rl_dataset_path(env_id)` (or `--out`), which `create_dataset` reads
for a config naming that env id.
"""
import logging
import os
from typing import Any, Dict, Optional

import numpy as np
import torch

from ding.data.offline_dataset import d4rl_dataset_path
from dizoo.d4rl.envs.d4rl_env import gymnasium_env_id
from dizoo.mujoco.envs.mujoco_env import make_mujoco

logger = logging.getLogger('dizoo.d4rl.dataset')
TRAIN_STEPS = {'medium': 100000, 'expert': 1000000}


def behaviour_of(env_id: str) -> str:
    kind = '-'.join(env_id.split('-')[1:-1])
    if kind not in ('random', *TRAIN_STEPS):
        raise ValueError(f'{env_id!r}: this maker supports random, medium and expert datasets, not {kind!r}')
    return kind


def sac_policy(domain: str, sac_dir: str, train_steps: int, seed: int) -> Any:
    """Our SAC on the domain, trained for `train_steps` env steps (or loaded from `sac_dir`)."""
    from ding.model import ContinuousQAC
    from ding.policy import SACPolicy
    from dizoo.common.config_loader import load_config
    from dizoo.mujoco.entry.mujoco_offpolicy import train
    ckpt = os.path.join(sac_dir, 'ckpt', 'final.pth.tar')
    if not os.path.isfile(ckpt):
        train(domain, 'sac', seed=seed, max_env_step=train_steps, exp_name=sac_dir, save_cfg=False)
    cfg = load_config(f'dizoo.mujoco.config.{domain}_sac_config', seed, sac_dir, None, False)
    policy = SACPolicy(cfg.policy, model=ContinuousQAC(**cfg.policy.model), enable_field=['collect'])
    policy.collect_mode.load_state_dict(torch.load(ckpt, map_location='cpu', weights_only=False))
    return policy


def record(env_id: str, policy: Any, episodes: int, seed: int) -> Dict[str, np.ndarray]:
    """Our columns of `episodes` episodes (uniform actions when `policy` is None)."""
    env = make_mujoco(gymnasium_env_id(env_id))
    rng = np.random.default_rng(seed)
    rows: Dict[str, list] = {k: [] for k in ('obs', 'action', 'reward', 'next_obs', 'done', 'truncated')}
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed * 100003 + episode)
        ended = False
        while not ended:
            if policy is None:
                action = rng.uniform(-1, 1, env.action_space.shape).astype(np.float32)
            else:
                action = policy.collect_mode.forward_batch(obs[None].astype(np.float32))['action'][0]
            next_obs, reward, terminated, truncated, _ = env.step(action)
            for key, value in zip(rows, (obs, action, reward, next_obs, terminated, truncated)):
                rows[key].append(value)
            obs, ended = next_obs, terminated or truncated
    return {k: np.asarray(v, dtype=bool if k in ('done', 'truncated') else np.float32) for k, v in rows.items()}


def mean_episode_return(reward: np.ndarray, done: np.ndarray, truncated: np.ndarray) -> float:
    """The mean return of the episodes a dataset's columns hold (each ends at done or truncated)."""
    ends = np.flatnonzero(np.asarray(done) | np.asarray(truncated))
    return float(np.add.reduceat(np.asarray(reward), np.r_[0, ends[:-1] + 1]).mean())


def make_dataset(env_id: str, out: Optional[str] = None, episodes: int = 100, train_steps: Optional[int] = None,
                 seed: int = 0, sac_dir: Optional[str] = None) -> Dict[str, Any]:
    """Write the dataset; returns {'path', 'transitions', 'mean_return', 'episodes'}."""
    from ding.data.offline_save import save_offline_data
    kind, domain = behaviour_of(env_id), env_id.split('-')[0].lower()
    policy = None
    if kind != 'random':
        steps = int(train_steps or TRAIN_STEPS[kind])
        policy = sac_policy(domain, sac_dir or f'{domain}_sac_{steps}_seed{seed}', steps, seed)
    columns = record(env_id, policy, episodes, seed)
    out = out or d4rl_dataset_path(env_id)
    save_offline_data(columns, out, 'd4rl')  # D4RL's layout: observations, actions, rewards, terminals, timeouts
    ends = np.flatnonzero(columns['done'] | columns['truncated'])
    info = {'path': out, 'transitions': len(columns['reward']), 'episodes': len(ends),
            'mean_return': mean_episode_return(columns['reward'], columns['done'], columns['truncated'])}
    logger.info('dataset %s', info)
    return info


def main() -> None:
    from dizoo.common.cli import run_from_command_line

    def from_flags(env_id: str = 'hopper-medium-v2', out: str = None, episodes: int = 100, train_steps: int = None,
                   seed: int = 0, sac_dir: str = None) -> Dict[str, Any]:
        return make_dataset(env_id, out, episodes, train_steps, seed, sac_dir)

    print(run_from_command_line(from_flags, __doc__))


if __name__ == '__main__':
    main()
