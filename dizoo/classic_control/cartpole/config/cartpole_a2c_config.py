"""A2C on CartPole (the entry script runs CartPole-v1 to 195; `env_id`/`stop_value` are
DI-engine's v0 defaults). Short rollouts, one update per collect, data used once."""
from easydict import EasyDict

cartpole_a2c_config = dict(
    exp_name='cartpole_a2c_seed0',
    env=dict(env_id='CartPole-v0', collector_env_num=8, evaluator_env_num=5, n_evaluator_episode=5, stop_value=195),
    policy=dict(
        cuda=False,
        action_space='discrete',
        model=dict(
            obs_shape=4,
            action_shape=2,
            action_space='discrete',
            share_encoder=False,
            encoder_hidden_size_list=[64, 64],
            actor_head_hidden_size=64,
            critic_head_hidden_size=64,
        ),
        learn=dict(batch_size=128, learning_rate=1e-3, value_weight=0.5, entropy_weight=0.01, adv_norm=True,
                   grad_clip_value=0.5),
        collect=dict(n_sample=128, unroll_len=1, discount_factor=0.99, gae_lambda=0.95),
        eval=dict(evaluator=dict(eval_freq=20)),
    ),
)
cartpole_a2c_config = EasyDict(cartpole_a2c_config)
main_config = cartpole_a2c_config

cartpole_a2c_create_config = dict(
    env=dict(type='cartpole', import_names=['dizoo.classic_control.cartpole.envs.cartpole_env']),
    env_manager=dict(type='base'),
    policy=dict(type='a2c'),
)
cartpole_a2c_create_config = EasyDict(cartpole_a2c_create_config)
create_config = cartpole_a2c_create_config
