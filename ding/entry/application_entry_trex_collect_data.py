"""`trex_collecting_data(args)`: T-REX's ranked demonstrations.

`args.cfg` is `[main_config, create_config]` (or a config file path), `args.seed` the first seed.
For each checkpoint c in range(checkpoint_min, checkpoint_max + checkpoint_step, checkpoint_step)
(keys under `reward_model`), the policy saved at `<expert_model_path>/ckpt/iteration_<c>.pth.tar`
plays one episode, taking a uniform random action with probability `policy.other.eps.collect`
(0.2 when unset), seed `args.seed + k` for the k-th checkpoint.
Written under `<exp_name>/` (pickles, atomically):
  suboptimal_data.pkl   {k: [episode]}, an episode a list of transition dicts
  episodes_data.pkl     [[observations of each episode] per checkpoint]   (TrexRewardModel reads)
  learning_returns.pkl  [[return of each episode] per checkpoint]         (TrexRewardModel reads)
  learning_rewards.pkl  [[rewards of each episode] per checkpoint]
  checkpoints.pkl       the checkpoint numbers, as strings
Returns (checkpoints, episodes_data, learning_returns, learning_rewards).
"""
import argparse
import copy
import os
import pickle
from contextlib import closing
from typing import Any, Dict, List, Tuple

import numpy as np

COLLECT_EPS = 0.2  # default collect epsilon for these demonstrations


def trex_get_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument('--cfg', type=str, required=True, help='path of a config file')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--device', type=str, default='cpu')
    return parser.parse_known_args()[0]


def _episode_rows(columns: Dict[str, np.ndarray]) -> List[Dict[str, Any]]:
    keys = ('obs', 'action', 'reward', 'next_obs', 'done')
    return [{k: columns[k][t] for k in keys} for t in range(len(columns['obs']))]


def _save(obj: Any, path: str) -> None:
    from ding.utils.fileio import atomic_write_with
    atomic_write_with(path, lambda f: pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL))


def trex_collecting_data(args: Any = None) -> Tuple[List[str], List[Any], List[Any], List[Any]]:
    from ding.config import compile_config, read_config
    from ding.entry.collect import record
    from ding.entry.evaluate import load_policy, make_eval_env
    if args is None:
        args = trex_get_args()
    main_cfg, create_cfg = read_config(args.cfg) if isinstance(args.cfg, str) else copy.deepcopy(args.cfg)
    rm = main_cfg.reward_model
    for key in ('expert_model_path', 'checkpoint_min', 'checkpoint_max', 'checkpoint_step'):
        if rm.get(key) is None:
            raise ValueError(f'trex_collecting_data: reward_model.{key} is required')
    seed = int(getattr(args, 'seed', 0) or 0)
    cfg = compile_config(copy.deepcopy(main_cfg), create_cfg=copy.deepcopy(create_cfg), auto=True, seed=seed,
                         save_cfg=False)
    eps_cfg = cfg.policy.get('other', {}).get('eps')
    eps = float(eps_cfg.get('collect', COLLECT_EPS)) if eps_cfg is not None else 0.0
    checkpoints = [str(c) for c in range(rm.checkpoint_min, rm.checkpoint_max + rm.checkpoint_step, rm.checkpoint_step)]
    paths = [os.path.join(rm.expert_model_path, 'ckpt', f'iteration_{c}.pth.tar') for c in checkpoints]
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        raise FileNotFoundError(f'trex_collecting_data: no checkpoint {missing[0]} (reward_model.expert_model_path '
                                f'and checkpoint_min/max/step name {len(paths)} files; {len(missing)} are missing)')
    suboptimal, episodes_data, learning_returns, learning_rewards = {}, [], [], []
    for k, path in enumerate(paths):
        policy = load_policy(cfg, path)
        with closing(make_eval_env(cfg, render=False)) as env:
            columns = record(policy, env, episodes=1, eps=eps, seed=seed + k)
        suboptimal[k] = [_episode_rows(columns)]
        episodes_data.append([list(np.asarray(columns['obs'], dtype=np.float32))])
        learning_rewards.append([np.asarray(columns['reward'], dtype=np.float32).reshape(-1).tolist()])
        learning_returns.append([float(columns['episode_return'][0])])
    out_dir = main_cfg.exp_name  # as given: compile_config may rename an existing run folder
    os.makedirs(out_dir, exist_ok=True)
    for name, obj in (('suboptimal_data', suboptimal), ('episodes_data', episodes_data),
                      ('learning_returns', learning_returns), ('learning_rewards', learning_rewards),
                      ('checkpoints', checkpoints)):
        _save(obj, os.path.join(out_dir, f'{name}.pkl'))
    return checkpoints, episodes_data, learning_returns, learning_rewards


if __name__ == '__main__':
    trex_collecting_data()
