"""GAIL-DQN on CartPole-v0 with DI-engine's `cartpole_dqn_gail_config` unchanged, the expert a
trained DQN: DI-engine 0.5.3's own `ding/example/dqn.py` is run first (in a scratch folder) and
its best checkpoint (`cartpole_dqn_seed0/ckpt/eval.pth.tar`) plays `collect_count` (1000) greedy
transitions, the discriminator's expert pairs. Per seed: env steps and seconds to the stop value
(195), or the best evaluation when `--max-env-step` comes first.

    python benchmarks/learning/gail_cartpole.py [--seeds 0,1,2] [--max-env-step 30000]
writes benchmarks/results/gail_cartpole.json."""
import argparse
import copy
import os
import resource
import sys
import tempfile
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)


def dqn_expert(folder: str) -> str:
    from benchmarks.di_engine.di_engine_examples import run_one
    row = run_one('dqn', folder, timeout=290)
    if row['status'] != 'finished':
        raise RuntimeError(f'DI-engine dqn.py did not finish: {row}')
    return os.path.join(folder, 'cartpole_dqn_seed0', 'ckpt', 'eval.pth.tar')


def expert_pairs(ckpt: str, count: int) -> dict:
    from ding.config import compile_config
    from ding.model import DQN
    from ding.policy import DQNPolicy
    from dizoo.classic_control.cartpole.config.cartpole_dqn_config import create_config, main_config
    from tests.learning.test_gail_cartpole import make_env
    cfg = compile_config(copy.deepcopy(main_config), create_cfg=copy.deepcopy(create_config), auto=True,
                         save_cfg=False)
    policy = DQNPolicy(cfg.policy, model=DQN(**cfg.policy.model))
    policy.learn_mode.load_state_dict(torch.load(ckpt, weights_only=False))
    env = make_env()
    env.seed(0)
    obs_rows, actions = [], []
    obs = env.reset()
    while len(obs_rows) < count:
        action = policy.eval_mode.forward_batch(np.asarray(obs, np.float32)[None])['action'][0]
        obs_rows.append(np.asarray(obs, np.float32))
        actions.append(int(action))
        timestep = env.step(np.array(action))
        obs = env.reset() if timestep.done else timestep.obs
    env.close()
    return {'obs': np.stack(obs_rows), 'action': np.asarray(actions, np.int64), 'reward': np.zeros(count, np.float32)}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument('--seeds', default='0,1,2')
    p.add_argument('--max-env-step', type=int, default=30000)
    p.add_argument('--out', default=os.path.join(ROOT, 'benchmarks', 'results', 'gail_cartpole.json'))
    args = p.parse_args()
    from ding.utils.fileio import atomic_write_json
    from dizoo.classic_control.cartpole.config.cartpole_dqn_gail_config import main_config
    from tests.learning.test_gail_cartpole import run_gail
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        expert = expert_pairs(dqn_expert(folder), main_config.reward_model.collect_count)
        for seed in [int(s) for s in args.seeds.split(',')]:
            evals, start, cpu = [], time.time(), resource.getrusage(resource.RUSAGE_SELF).ru_utime
            ctx, _, _, _ = run_gail(expert, seed=seed, max_env_step=args.max_env_step,
                                    exp_name=os.path.join(folder, f'gail_{seed}'), evals=evals)
            done = [v for v in evals if v > -np.inf]
            rows.append({'seed': seed, 'env_step': int(ctx.env_step), 'best_eval': max(done),
                         'stop_reached': max(done) >= main_config.env.stop_value,
                         'wall_s': round(time.time() - start, 1),
                         'cpu_s': round(resource.getrusage(resource.RUSAGE_SELF).ru_utime - cpu, 1)})
            print(rows[-1], flush=True)
    atomic_write_json(args.out, {'config': 'cartpole_dqn_gail_config (unchanged)',
                                 'expert': 'DI-engine dqn.py eval.pth.tar', 'threads': torch.get_num_threads(),
                                 'runs': rows})


if __name__ == '__main__':
    torch.set_num_threads(1)
    main()
