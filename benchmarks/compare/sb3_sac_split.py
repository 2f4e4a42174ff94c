"""Where an env step of Stable-Baselines3's SAC goes on HalfCheetah-v5 at the RL Zoo's values (the
comparison's `sac_halfcheetah`): its gradient step (`SAC.train`, sampling included) against the
rest of `learn()` (acting, the env, the replay buffer, callbacks), in microseconds per env step
after the 10k-step random warm-up, one torch thread. Read beside `benchmarks/throughput/profile_sac.py
--config dizoo.mujoco.config.halfcheetah_sac_config`: the same networks and batch, so the update
sets a floor under both frameworks' wall time.

Runs in the sb3 venv (benchmarks/compare/venvs.py):

    benchmarks/compare/.venvs/sb3/bin/python benchmarks/compare/sb3_sac_split.py [--env-steps 3000]
        [--env-id HalfCheetah-v5] [--out benchmarks/results/sb3_sac_split.json]
"""
import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'runners'))
from sb3_runner import ZOO_SAC_MUJOCO  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--env-steps', type=int, default=3000)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--env-id', default='HalfCheetah-v5', help="e.g. Hopper-v5 (the comparison's sac_hopper)")
    parser.add_argument('--out', default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                      'results', 'sb3_sac_split.json'))
    args = parser.parse_args()
    import stable_baselines3
    import torch
    from stable_baselines3 import SAC
    from stable_baselines3.common.env_util import make_vec_env
    torch.set_num_threads(1)
    warmup = ZOO_SAC_MUJOCO['learning_starts']
    model = SAC('MlpPolicy', make_vec_env(args.env_id, n_envs=1, seed=args.seed), learning_starts=warmup,
                seed=args.seed, device='cpu')
    model.learn(warmup + 100)  # the random warm-up and the first updates, not timed
    spent = {'train': 0.0}
    train = model.train

    def timed_train(*a, **kw):
        t = time.perf_counter()
        train(*a, **kw)
        spent['train'] += time.perf_counter() - t

    model.train = timed_train
    t0 = time.perf_counter()
    model.learn(args.env_steps, reset_num_timesteps=False)
    total = time.perf_counter() - t0
    per = lambda x: round(1e6 * x / args.env_steps, 1)  # noqa: E731
    result = {
        'benchmark': 'sb3_sac_split', 'env_id': args.env_id, 'hyperparameters': ZOO_SAC_MUJOCO,
        'env_steps': args.env_steps, 'torch_threads': torch.get_num_threads(),
        'us_per_env_step': {'gradient step (SAC.train: sample, losses, backward, Adam, polyak)': per(spent['train']),
                            'the rest of learn() (acting, env step, buffer, callbacks)': per(total - spent['train'])},
        'total_us_per_env_step': per(total),
        'versions': {'stable_baselines3': stable_baselines3.__version__, 'torch': torch.__version__},
        'date': datetime.now(timezone.utc).isoformat(timespec='seconds'), 'load_average_1min': os.getloadavg()[0],
    }
    tmp = args.out + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(result, f, indent=1)
    os.replace(tmp, args.out)
    print(json.dumps(result, indent=1))


if __name__ == '__main__':
    main()
