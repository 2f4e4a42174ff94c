"""PPO on LunarLander-v3 with continuous throttles in [-1, 1] (Gaussian actor, env actions
clipped to `action_bound=1.0`). Needs Box2D: pip install "ding[box2d]"."""
from easydict import EasyDict

lunarlander_ppo_continuous_config = dict(
    exp_name='lunarlander_ppo_continuous_seed0',
    env=dict(collector_env_num=8, evaluator_env_num=5, n_evaluator_episode=5, stop_value=200, continuous=True),
    policy=dict(
        cuda=False,
        action_space='continuous',
        action_bound=1.0,
        model=dict(
            obs_shape=8,
            action_shape=2,
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
            learning_rate=3e-4,
            clip_ratio=0.2,
            value_weight=0.5,
            entropy_weight=0.0,
            adv_norm=True,
            grad_clip_value=0.5,
        ),
        collect=dict(n_sample=2048, unroll_len=1, discount_factor=0.999, gae_lambda=0.98),
        eval=dict(evaluator=dict(eval_freq=400)),
    ),
)
lunarlander_ppo_continuous_config = EasyDict(lunarlander_ppo_continuous_config)
main_config = lunarlander_ppo_continuous_config

lunarlander_ppo_continuous_create_config = dict(
    env=dict(type='lunarlander', import_names=['dizoo.box2d.lunarlander.envs.lunarlander_env']),
    env_manager=dict(type='base'),
    policy=dict(type='ppo'),
)
lunarlander_ppo_continuous_create_config = EasyDict(lunarlander_ppo_continuous_create_config)
create_config = lunarlander_ppo_continuous_create_config
