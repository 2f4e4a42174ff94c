"""TD3 on HalfCheetah-v5 (DI-engine's key names and its mujoco values: 256-unit twin critics,
25k random warm-up steps, delayed actor updates). Needs the mujoco extra.

The stop value is TD3's published HalfCheetah score (STOP_VALUE_SOURCE). It was DI-engine's 11,000,
uncited and never run here."""
from easydict import EasyDict

# the max average return over 10 trials of 1M env steps, on HalfCheetah-v1 (MuJoCo 1.50)
STOP_VALUE_SOURCE = 'TD3, HalfCheetah: 9,636.95 (Fujimoto et al. 2018, Table 1)'

halfcheetah_td3_config = dict(
    exp_name='halfcheetah_td3_seed0',
    env=dict(
        env_id='HalfCheetah-v5',
        collector_env_num=1,
        evaluator_env_num=8,
        n_evaluator_episode=8,
        act_scale=True,
        stop_value=9636.95,  # a published score: STOP_VALUE_SOURCE
    ),
    policy=dict(
        cuda=False,
        random_collect_size=25000,
        model=dict(
            obs_shape=17,
            action_shape=6,
            action_space='regression',
            twin_critic=True,
            actor_head_hidden_size=256,
            critic_head_hidden_size=256,
        ),
        learn=dict(
            update_per_collect=1,
            batch_size=256,
            learning_rate_actor=1e-3,
            learning_rate_critic=1e-3,
            target_theta=0.005,
            discount_factor=0.99,
            actor_update_freq=2,
            noise=True,
            noise_sigma=0.2,
            noise_range=dict(min=-0.5, max=0.5),
            ignore_done=False,
        ),
        collect=dict(n_sample=1, noise_sigma=0.1),
        eval=dict(evaluator=dict(eval_freq=5000)),
        other=dict(replay_buffer=dict(replay_buffer_size=1000000)),
    ),
)
halfcheetah_td3_config = EasyDict(halfcheetah_td3_config)
main_config = halfcheetah_td3_config

halfcheetah_td3_create_config = dict(
    env=dict(type='mujoco', import_names=['dizoo.mujoco.envs.mujoco_env']),
    env_manager=dict(type='base'),
    policy=dict(type='td3'),
)
halfcheetah_td3_create_config = EasyDict(halfcheetah_td3_create_config)
create_config = halfcheetah_td3_create_config
