"""The sb3-contrib side of `maskable_ppo.py`, and the parts both sides share.

Run by the sb3-contrib venv's python (`/work/peers/sb3c`), it trains MaskablePPO on the masking
test env (`tests/policy/action_mask_env.py`, loaded by file path so nothing of `ding` is
imported here) and prints one JSON line. `maskable_ppo.py` imports `load_env_module`,
`evaluate` and `RECIPE` from this file, so both frameworks see the same env, recipe and evaluation.
Needs numpy and gymnasium only at import time."""
import argparse
import importlib.util
import json
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
ENV_FILE = REPO_ROOT / 'tests' / 'policy' / 'action_mask_env.py'
EVAL_EPISODES = 10
HIDDEN = 64  # 2 hidden layers of 64 (tanh), separate actor and critic: SB3's MlpPolicy default
# sb3-contrib MaskablePPO's defaults; our PPO runs at the same values (its own defaults, but for
# the network above and n_sample, which SB3 calls n_steps).
RECIPE = dict(n_steps=2048, batch_size=64, n_epochs=10, learning_rate=3e-4, gamma=0.99, gae_lambda=0.95,
              clip_range=0.2, ent_coef=0.0, vf_coef=0.5, max_grad_norm=0.5, normalize_advantage=True, n_envs=1)


def load_env_module():
    spec = importlib.util.spec_from_file_location('action_mask_env', ENV_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def eval_seed(seed: int, episode: int) -> int:
    """The compare harness's convention (runners/protocol.py): episode i of seed s resets with this."""
    return 100000 + 1000 * seed + episode


def evaluate(act, seed: int, env_module) -> dict:
    """EVAL_EPISODES greedy episodes; `act(observation, action_mask) -> int`. Counts the forbidden
    actions taken by checking the mask before each step, so no env counter is shared."""
    env = env_module.MaskedTargets()
    returns, invalid = [], 0
    for episode in range(EVAL_EPISODES):
        obs, _ = env.reset(seed=eval_seed(seed, episode))
        total, done = 0.0, False
        while not done:
            action = int(act(obs['observation'], obs['action_mask']))
            invalid += int(not obs['action_mask'][action])
            obs, reward, terminated, truncated, _ = env.step(action)
            total += reward
            done = terminated or truncated
        returns.append(total)
    return dict(mean_return=float(np.mean(returns)), invalid_actions=invalid)


def run_sb3c(seed: int, max_env_step: int, threads: int) -> dict:
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker
    torch.set_num_threads(threads)
    env_module = load_env_module()

    class ObservationOnly(gym.ObservationWrapper):
        """The policy sees `observation` only (as ours does, which splits the mask off); the mask
        reaches MaskablePPO through ActionMasker, sb3-contrib's documented way."""

        def __init__(self, env):
            super().__init__(env)
            self.observation_space = env.observation_space['observation']

        def observation(self, obs):
            self.last_mask = obs['action_mask']
            return obs['observation']

    env = ActionMasker(ObservationOnly(env_module.MaskedTargets()), lambda inner: inner.last_mask.astype(bool))
    env_module.MaskedTargets.invalid_taken = 0
    r = RECIPE
    model = MaskablePPO('MlpPolicy', env, n_steps=r['n_steps'], batch_size=r['batch_size'], n_epochs=r['n_epochs'],
                        learning_rate=r['learning_rate'], gamma=r['gamma'], gae_lambda=r['gae_lambda'],
                        clip_range=r['clip_range'], ent_coef=r['ent_coef'], vf_coef=r['vf_coef'],
                        max_grad_norm=r['max_grad_norm'], normalize_advantage=r['normalize_advantage'],
                        policy_kwargs=dict(net_arch=dict(pi=[HIDDEN, HIDDEN], vf=[HIDDEN, HIDDEN])),
                        seed=seed, verbose=0, device='cpu')
    n_params = sum(p.numel() for p in model.policy.parameters())

    def act(observation, mask):
        action, _ = model.predict(observation, action_masks=mask.astype(bool), deterministic=True)
        return int(action)

    curve, eval_s = [dict(env_step=0, **evaluate(act, seed, env_module))], 0.0  # untrained, outside the timed span
    start, cpu_start = time.perf_counter(), time.process_time()
    while model.num_timesteps < max_env_step:
        model.learn(total_timesteps=r['n_steps'], reset_num_timesteps=False)  # one rollout, one update
        t = time.perf_counter()
        curve.append(dict(env_step=int(model.num_timesteps), **evaluate(act, seed, env_module)))
        eval_s += time.perf_counter() - t
    wall_s, cpu_s = time.perf_counter() - start, time.process_time() - cpu_start
    import sb3_contrib
    return dict(framework='sb3-contrib MaskablePPO', version=sb3_contrib.__version__, torch=torch.__version__,
                seed=seed, curve=curve, wall_s=wall_s, cpu_s=cpu_s, eval_s=eval_s, env_steps=int(model.num_timesteps),
                n_params=n_params, invalid_actions_in_training=env_module.MaskedTargets.invalid_taken
                - sum(c['invalid_actions'] for c in curve))


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seed', type=int, required=True)
    parser.add_argument('--max-env-step', type=int, required=True)
    parser.add_argument('--threads', type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(run_sb3c(args.seed, args.max_env_step, args.threads)))
