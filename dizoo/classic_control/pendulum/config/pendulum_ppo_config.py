"""PPO with continuous actions on Pendulum-v1 (bars.md: eval mean >= -250 within 300k env steps).

The env takes actions in [-1, 1] (`act_scale=True`, scaled to the torque bounds), so the
policy clips what it sends to `action_bound=1.0` and learns from the unclipped Gaussian sample.
Pendulum's 200-step cap is a truncation: GAE bootstraps through it."""
from easydict import EasyDict

pendulum_ppo_config = dict(
    exp_name='pendulum_ppo_seed0',
    env=dict(collector_env_num=8, evaluator_env_num=5, n_evaluator_episode=5, stop_value=-250, act_scale=True),
    policy=dict(
        cuda=False,
        action_space='continuous',
        action_bound=1.0,
        model=dict(
            obs_shape=3,
            action_shape=1,
            action_space='continuous',
            share_encoder=False,
            encoder_hidden_size_list=[64, 64],
            actor_head_hidden_size=64,
            critic_head_hidden_size=64,
            log_std_init=-0.5,
        ),
        learn=dict(
            epoch_per_collect=10,
            batch_size=256,
            learning_rate=1e-3,
            clip_ratio=0.2,
            value_weight=0.5,
            entropy_weight=0.0,
            adv_norm=True,
            grad_clip_value=0.5,
        ),
        collect=dict(n_sample=2048, unroll_len=1, discount_factor=0.9, gae_lambda=0.95),
        eval=dict(evaluator=dict(eval_freq=80)),
    ),
)
pendulum_ppo_config = EasyDict(pendulum_ppo_config)
main_config = pendulum_ppo_config

pendulum_ppo_create_config = dict(
    env=dict(type='pendulum', import_names=['dizoo.classic_control.pendulum.envs.pendulum_env']),
    env_manager=dict(type='base'),
    policy=dict(type='ppo'),
)
pendulum_ppo_create_config = EasyDict(pendulum_ppo_create_config)
create_config = pendulum_ppo_create_config
