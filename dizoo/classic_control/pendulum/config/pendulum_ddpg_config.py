"""DDPG on Pendulum-v1 (solved at -250): one critic, actor updated every step, Gaussian
exploration noise `collect.noise_sigma`. Actions in [-1, 1]; the env scales them."""
from easydict import EasyDict

pendulum_ddpg_config = dict(
    exp_name='pendulum_ddpg_seed0',
    env=dict(
        collector_env_num=1,
        evaluator_env_num=5,
        n_evaluator_episode=10,
        act_scale=True,
        stop_value=-250,
    ),
    policy=dict(
        cuda=False,
        random_collect_size=1000,
        model=dict(
            obs_shape=3,
            action_shape=1,
            action_space='regression',
            twin_critic=False,
            actor_head_hidden_size=64,
            critic_head_hidden_size=64,
        ),
        learn=dict(
            update_per_collect=1,
            batch_size=128,
            learning_rate_actor=1e-3,
            learning_rate_critic=1e-3,
            target_theta=0.005,
            discount_factor=0.99,
            actor_update_freq=1,
            noise=False,
            ignore_done=False,
        ),
        collect=dict(n_sample=1, noise_sigma=0.1),
        eval=dict(evaluator=dict(eval_freq=1000)),
        other=dict(replay_buffer=dict(replay_buffer_size=100000)),
    ),
)
pendulum_ddpg_config = EasyDict(pendulum_ddpg_config)
main_config = pendulum_ddpg_config

pendulum_ddpg_create_config = dict(
    env=dict(type='pendulum', import_names=['dizoo.classic_control.pendulum.envs.pendulum_env']),
    env_manager=dict(type='base'),
    policy=dict(type='ddpg'),
)
pendulum_ddpg_create_config = EasyDict(pendulum_ddpg_create_config)
create_config = pendulum_ddpg_create_config
