"""TD3 on continuous LunarLander-v3 (two throttles in [-1, 1]; solved at 200): DI-engine's
key names and its lunarlander values. Needs the box2d extra."""
from easydict import EasyDict

lunarlander_td3_config = dict(
    exp_name='lunarlander_cont_td3_seed0',
    env=dict(
        env_id='LunarLander-v3',
        continuous=True,
        collector_env_num=4,
        evaluator_env_num=8,
        n_evaluator_episode=8,
        stop_value=200,
    ),
    policy=dict(
        cuda=False,
        random_collect_size=10000,
        model=dict(
            obs_shape=8,
            action_shape=2,
            action_space='regression',
            twin_critic=True,
            actor_head_hidden_size=256,
            critic_head_hidden_size=256,
        ),
        learn=dict(
            update_per_collect=256,
            batch_size=256,
            learning_rate_actor=3e-4,
            learning_rate_critic=1e-3,
            target_theta=0.005,
            discount_factor=0.99,
            actor_update_freq=2,
            noise=True,
            noise_sigma=0.2,
            noise_range=dict(min=-0.5, max=0.5),
            ignore_done=False,
        ),
        collect=dict(n_sample=256, noise_sigma=0.1),
        eval=dict(evaluator=dict(eval_freq=1000)),
        other=dict(replay_buffer=dict(replay_buffer_size=int(1e5))),
    ),
)
lunarlander_td3_config = EasyDict(lunarlander_td3_config)
main_config = lunarlander_td3_config

lunarlander_td3_create_config = dict(
    env=dict(type='lunarlander', import_names=['dizoo.box2d.lunarlander.envs.lunarlander_env']),
    env_manager=dict(type='subprocess'),
    policy=dict(type='td3'),
)
lunarlander_td3_create_config = EasyDict(lunarlander_td3_create_config)
create_config = lunarlander_td3_create_config
