"""Discrete SAC on CartPole-v0 (solved at an eval return of 195): DI-engine's key names for its
`discrete_sac` policy, values chosen here for a short CPU run (4 collecting envs, 64 env steps
then 16 updates, 1,000 random steps first, the temperature learned toward 0.5 * log(2))."""
from easydict import EasyDict

cartpole_sac_config = dict(
    exp_name='cartpole_sac_seed0',
    env=dict(
        collector_env_num=4,
        evaluator_env_num=5,
        n_evaluator_episode=5,
        stop_value=195,
    ),
    policy=dict(
        cuda=False,
        random_collect_size=1000,
        model=dict(
            obs_shape=4,
            action_shape=2,
            twin_critic=True,
            encoder_hidden_size_list=[64, 64],
            actor_head_hidden_size=64,
            critic_head_hidden_size=64,
        ),
        learn=dict(
            update_per_collect=16,
            batch_size=64,
            learning_rate_q=1e-3,
            learning_rate_policy=1e-3,
            learning_rate_alpha=3e-4,
            target_theta=0.01,
            discount_factor=0.99,
            auto_alpha=True,
            ignore_done=False,
        ),
        collect=dict(n_sample=64),
        eval=dict(evaluator=dict(eval_freq=100)),
        other=dict(replay_buffer=dict(replay_buffer_size=50000)),
    ),
)
cartpole_sac_config = EasyDict(cartpole_sac_config)
main_config = cartpole_sac_config

cartpole_sac_create_config = dict(
    env=dict(type='cartpole', import_names=['dizoo.classic_control.cartpole.envs.cartpole_env']),
    env_manager=dict(type='base'),
    policy=dict(type='discrete_sac'),
)
cartpole_sac_create_config = EasyDict(cartpole_sac_create_config)
create_config = cartpole_sac_create_config
