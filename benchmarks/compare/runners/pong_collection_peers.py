"""The peers' arms of `benchmarks/throughput/pong_collection.py`, run inside their own venvs:

- `sb3_random` / `sb3_cnn`: SB3's `make_atari_env` (AtariWrapper: noop 30, max-and-skip 4,
  life loss as terminal, FIRE on reset, 84x84 gray, reward clip) in a `SubprocVecEnv`, then
  `VecFrameStack(4)`; actions uniform, or greedy from SB3's DQN `CnnPolicy` (NatureCNN);
- `envpool_random` / `envpool_cnn`: EnvPool's `Pong-v5` with the same settings in C++ threads
  (the ceiling); the CNN is the Nature DQN network in plain torch.

Prints one JSON line: {"arm", "env_steps", "wall_s", "env_steps_per_s"}.
"""
import argparse
import json
import time

import numpy as np

N_ACTIONS = 6  # Pong's minimal action set


def nature_cnn():
    import torch
    from torch import nn
    return nn.Sequential(nn.Conv2d(4, 32, 8, 4), nn.ReLU(), nn.Conv2d(32, 64, 4, 2), nn.ReLU(), nn.Conv2d(64, 64, 3, 1),
                         nn.ReLU(), nn.Flatten(), nn.Linear(3136, 512), nn.ReLU(), nn.Linear(512, N_ACTIONS)).eval()


def make_pong():
    import ale_py
    import gymnasium
    gymnasium.register_envs(ale_py)
    return gymnasium.make('PongNoFrameskip-v4')


def sb3_loop(envs: int, cnn: bool, seed: int):
    from stable_baselines3 import DQN
    from stable_baselines3.common.env_util import make_atari_env
    from stable_baselines3.common.vec_env import SubprocVecEnv, VecFrameStack
    venv = VecFrameStack(make_atari_env(make_pong, n_envs=envs, seed=seed, vec_env_cls=SubprocVecEnv), n_stack=4)
    policy = DQN('CnnPolicy', venv, buffer_size=1, seed=seed, device='cpu').policy if cnn else None
    rng = np.random.default_rng(seed)
    state = {'obs': venv.reset()}

    def step():
        if policy is None:
            actions = rng.integers(0, N_ACTIONS, envs)
        else:
            actions, _ = policy.predict(state['obs'], deterministic=True)
        state['obs'], _, _, _ = venv.step(actions)
        return 1

    return step, venv.close


def envpool_loop(envs: int, cnn: bool, seed: int, threads: int):
    import envpool
    pool = envpool.make_gymnasium('Pong-v5', num_envs=envs, batch_size=envs, num_threads=threads, seed=seed,
                                  episodic_life=True, reward_clip=True, stack_num=4, img_height=84, img_width=84,
                                  noop_max=30, frame_skip=4, repeat_action_probability=0.0, use_fire_reset=True)
    model = nature_cnn() if cnn else None
    rng = np.random.default_rng(seed)
    state = {'obs': pool.reset()[0]}

    def step():
        if model is None:
            actions = rng.integers(0, N_ACTIONS, envs)
        else:
            import torch
            with torch.no_grad():
                x = torch.from_numpy(state['obs']).float().div_(255.0)
                actions = model(x).argmax(1).numpy()
        state['obs'] = pool.step(actions.astype(np.int32))[0]
        return 1

    return step, pool.close


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--arm', required=True, choices=['sb3_random', 'sb3_cnn', 'envpool_random', 'envpool_cnn'])
    parser.add_argument('--envs', type=int, default=8)
    parser.add_argument('--steps', type=int, default=1000, help='batched steps timed (env steps = steps x envs)')
    parser.add_argument('--warmup', type=int, default=100)
    parser.add_argument('--envpool-threads', type=int, default=2)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args()
    import torch
    torch.set_num_threads(1)
    cnn = args.arm.endswith('_cnn')
    if args.arm.startswith('sb3'):
        step, close = sb3_loop(args.envs, cnn, args.seed)
    else:
        step, close = envpool_loop(args.envs, cnn, args.seed, args.envpool_threads)
    print(json.dumps(dict(arm=args.arm, **timed_run(step, close, args.warmup, args.steps, args.envs))), flush=True)


def timed_run(step, close, warmup: int, steps: int, envs: int) -> dict:
    """Warm up, then time `steps` batched steps (`step()` returns how many it made), close.
    Shared with our arms in benchmarks/throughput/pong_collection.py, so every arm is timed alike."""
    done = 0
    while done < warmup:
        done += step()
    done, start = 0, time.perf_counter()
    while done < steps:
        done += step()
    wall = time.perf_counter() - start
    close()
    return dict(env_steps=done * envs, wall_s=wall, env_steps_per_s=done * envs / wall)

if __name__ == '__main__':
    main()
