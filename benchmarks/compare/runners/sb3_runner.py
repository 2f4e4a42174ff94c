"""Stable-Baselines3 under the comparison protocol, with the RL Zoo's tuned hyperparameters.

Runs inside the `sb3` venv. Values are those of rl-baselines3-zoo `hyperparams/{dqn,ppo,sac}.yml`
for the env (SB3 defaults for every key the zoo leaves out). The zoo anneals its schedules over
its own `n_timesteps`; SB3 anneals over the `total_timesteps` given to `learn()`, which here is
the benchmark budget, so schedules are rescaled to keep the zoo's per-step values.
"""
from typing import Any, Callable, Dict, Tuple

from protocol import ProtocolEvaluator, parse_runner_args, set_torch_threads

# rl-baselines3-zoo hyperparams/dqn.yml, CartPole-v1 (n_timesteps 5e4).
ZOO_DQN_CARTPOLE = dict(
    n_timesteps=50_000, learning_rate=2.3e-3, batch_size=64, buffer_size=100_000, learning_starts=1000,
    gamma=0.99, target_update_interval=10, train_freq=256, gradient_steps=128, exploration_fraction=0.16,
    exploration_final_eps=0.04, net_arch=[256, 256])
# rl-baselines3-zoo hyperparams/ppo.yml, CartPole-v1: lr lin_1e-3, clip_range lin_0.2 (n_timesteps 1e5).
ZOO_PPO_CARTPOLE = dict(
    n_timesteps=100_000, n_envs=8, n_steps=32, batch_size=256, gae_lambda=0.8, gamma=0.98, n_epochs=20,
    ent_coef=0.0, learning_rate=1e-3, clip_range=0.2)
# rl-baselines3-zoo hyperparams/sac.yml, Pendulum-v1: only learning_rate 1e-3 (n_timesteps 2e4);
# the rest are SB3 SAC defaults (buffer 1e6, learning_starts 100, batch 256, tau 0.005,
# gamma 0.99, train_freq 1, gradient_steps 1, ent_coef 'auto', net_arch [256, 256]).
ZOO_SAC_PENDULUM = dict(n_timesteps=20_000, learning_rate=1e-3)
# rl-baselines3-zoo hyperparams/ppo.yml, Hopper-v3 (tuned; run here on Hopper-v5), n_timesteps 1e6.
# `normalize: true` is a VecNormalize of observations and rewards, with the zoo's gamma.
ZOO_PPO_HOPPER = dict(
    n_timesteps=1_000_000, normalize=True, n_envs=1, batch_size=32, n_steps=512, gamma=0.999,
    learning_rate=9.80828e-05, ent_coef=0.00229519, clip_range=0.2, n_epochs=5, gae_lambda=0.99, max_grad_norm=0.7,
    vf_coef=0.835671, log_std_init=-2, ortho_init=False, activation_fn='ReLU',
    net_arch=dict(pi=[256, 256], vf=[256, 256]))
# rl-baselines3-zoo hyperparams/sac.yml, HalfCheetah-v4 and Hopper-v4 (run here on -v5): only
# learning_starts 10000 (n_timesteps 1e6); the rest are SB3 SAC defaults (lr 3e-4, buffer 1e6,
# batch 256, tau 0.005, gamma 0.99, train_freq 1, gradient_steps 1, ent_coef 'auto', 2 x 256 nets).
ZOO_SAC_MUJOCO = dict(n_timesteps=1_000_000, learning_starts=10_000)
# rl-baselines3-zoo hyperparams/td3.yml, HalfCheetah-v4 / Hopper-v4 (the same MuJoCo defaults; run
# here on -v5); the rest are SB3 TD3 defaults (buffer 1e6, tau 0.005, gamma 0.99, policy_delay 2,
# target_policy_noise 0.2, target_noise_clip 0.5).
ZOO_TD3_MUJOCO = dict(n_timesteps=1_000_000, learning_starts=10_000, noise_std=0.1, train_freq=1, gradient_steps=1,
                      learning_rate=1e-3, batch_size=256, net_arch=[400, 300])


class ZooLinear:
    """The zoo's `lin_<v0>` schedule (v0 -> 0 over the zoo's n_timesteps) under a longer learn().

    SB3 passes progress_remaining = 1 - t / budget; the zoo's value at step t is
    v0 * (1 - t / zoo_steps), floored at 0 once the zoo's run would have ended.
    """

    def __init__(self, v0: float, zoo_steps: int, budget: int) -> None:
        self.v0, self.zoo_steps, self.budget = v0, zoo_steps, budget

    def __call__(self, progress_remaining: float) -> float:
        t = (1.0 - progress_remaining) * self.budget
        return self.v0 * max(0.0, 1.0 - t / self.zoo_steps)


def build_model(algo: str, env_id: str, seed: int, budget: int) -> Tuple[Any, Dict[str, Any]]:
    from stable_baselines3 import DQN, PPO, SAC
    from stable_baselines3.common.env_util import make_vec_env
    if algo == 'dqn':
        hp = dict(ZOO_DQN_CARTPOLE)
        # the zoo's epsilon decays over 16% of 5e4 steps; keep that step count under our budget
        fraction = hp['exploration_fraction'] * hp['n_timesteps'] / budget
        model = DQN('MlpPolicy', make_vec_env(env_id, n_envs=1, seed=seed), learning_rate=hp['learning_rate'],
                    batch_size=hp['batch_size'], buffer_size=hp['buffer_size'],
                    learning_starts=hp['learning_starts'], gamma=hp['gamma'],
                    target_update_interval=hp['target_update_interval'], train_freq=hp['train_freq'],
                    gradient_steps=hp['gradient_steps'], exploration_fraction=fraction,
                    exploration_final_eps=hp['exploration_final_eps'],
                    policy_kwargs=dict(net_arch=hp['net_arch']), seed=seed, device='cpu')
    elif algo == 'ppo':
        hp = dict(ZOO_PPO_CARTPOLE)
        model = PPO('MlpPolicy', make_vec_env(env_id, n_envs=hp['n_envs'], seed=seed), n_steps=hp['n_steps'],
                    batch_size=hp['batch_size'], gae_lambda=hp['gae_lambda'], gamma=hp['gamma'],
                    n_epochs=hp['n_epochs'], ent_coef=hp['ent_coef'],
                    learning_rate=ZooLinear(hp['learning_rate'], hp['n_timesteps'], budget),
                    clip_range=ZooLinear(hp['clip_range'], hp['n_timesteps'], budget), seed=seed, device='cpu')
    elif algo == 'sac':
        hp = dict(ZOO_SAC_PENDULUM)
        model = SAC('MlpPolicy', make_vec_env(env_id, n_envs=1, seed=seed), learning_rate=hp['learning_rate'],
                    seed=seed, device='cpu')
    elif algo in ('sac_halfcheetah', 'sac_hopper'):
        hp = dict(ZOO_SAC_MUJOCO)
        model = SAC('MlpPolicy', make_vec_env(env_id, n_envs=1, seed=seed), learning_starts=hp['learning_starts'],
                    seed=seed, device='cpu')
    elif algo in ('td3_halfcheetah', 'td3_hopper'):
        import numpy as np
        from stable_baselines3 import TD3
        from stable_baselines3.common.noise import NormalActionNoise
        hp = dict(ZOO_TD3_MUJOCO)
        env = make_vec_env(env_id, n_envs=1, seed=seed)
        n = env.action_space.shape[0]
        model = TD3('MlpPolicy', env, learning_starts=hp['learning_starts'], train_freq=hp['train_freq'],
                    gradient_steps=hp['gradient_steps'], learning_rate=hp['learning_rate'],
                    batch_size=hp['batch_size'],
                    action_noise=NormalActionNoise(np.zeros(n), hp['noise_std'] * np.ones(n)),
                    policy_kwargs=dict(net_arch=hp['net_arch']), seed=seed, device='cpu')
    elif algo == 'ppo_hopper':
        from stable_baselines3.common.vec_env import VecNormalize
        from torch import nn
        hp = dict(ZOO_PPO_HOPPER)
        env = VecNormalize(make_vec_env(env_id, n_envs=hp['n_envs'], seed=seed), gamma=hp['gamma'])
        model = PPO('MlpPolicy', env, n_steps=hp['n_steps'], batch_size=hp['batch_size'], gamma=hp['gamma'],
                    learning_rate=hp['learning_rate'], ent_coef=hp['ent_coef'], clip_range=hp['clip_range'],
                    n_epochs=hp['n_epochs'], gae_lambda=hp['gae_lambda'], max_grad_norm=hp['max_grad_norm'],
                    vf_coef=hp['vf_coef'], seed=seed, device='cpu',
                    policy_kwargs=dict(log_std_init=hp['log_std_init'], ortho_init=hp['ortho_init'],
                                       activation_fn=getattr(nn, hp['activation_fn']), net_arch=hp['net_arch']))
    elif algo.endswith('_minatar'):
        from sb3_minatar import build_minatar_model
        return build_minatar_model(algo, env_id, seed, budget)
    else:
        raise ValueError(f'sb3 runner has no algorithm {algo!r}')
    return model, hp


def greedy(model: Any) -> Callable:
    """The deterministic action for one plain observation, normalised first (read-only) when
    the model trains on a VecNormalize."""
    normalizer = model.get_vec_normalize_env()
    if normalizer is None:
        return lambda obs: model.predict(obs, deterministic=True)[0]
    return lambda obs: model.predict(normalizer.normalize_obs(obs), deterministic=True)[0]


def main() -> None:
    args = parse_runner_args()
    set_torch_threads(args.torch_threads)
    import stable_baselines3
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    model, hp = build_model(args.spec.algo, args.spec.env_id, args.seed, args.max_env_steps)
    info = dict(versions={'stable_baselines3': stable_baselines3.__version__, 'torch': torch.__version__},
                hyperparameters=hp, torch_threads=torch.get_num_threads())
    evaluator = ProtocolEvaluator(args, 'sb3', info)
    act = greedy(model)

    class ProtocolCallback(BaseCallback):
        """Checked after every env step; evaluates on each 1,000-step boundary, stops SB3 when told."""

        def _on_step(self) -> bool:
            return not evaluator.step(self.num_timesteps, act)

    evaluator.start()
    model.learn(total_timesteps=args.max_env_steps, callback=ProtocolCallback())
    evaluator.finish(model.num_timesteps, act)


if __name__ == '__main__':
    main()
