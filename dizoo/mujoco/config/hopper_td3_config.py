"""TD3 on Hopper-v5 (DI-engine's key names and its mujoco values: 256-unit twin critics,
25k random warm-up steps, delayed actor updates). Needs the mujoco extra.

The stop value, DI-engine's 6000, is above every published Hopper result (TD3's 3,564, Fujimoto et
al. 2018, Table 1) and above every run here (benchmarks/results/compare_mujoco.json), so a run
trains to its env-step budget. It stays: a stop value is not lowered after runs fell short of it."""
from easydict import EasyDict

hopper_td3_config = dict(
    exp_name='hopper_td3_seed0',
    env=dict(
        env_id='Hopper-v5',
        collector_env_num=1,
        evaluator_env_num=8,
        n_evaluator_episode=8,
        act_scale=True,
        stop_value=6000,
    ),
    policy=dict(
        cuda=False,
        random_collect_size=25000,
        model=dict(
            obs_shape=11,
            action_shape=3,
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
hopper_td3_config = EasyDict(hopper_td3_config)
main_config = hopper_td3_config

hopper_td3_create_config = dict(
    env=dict(type='mujoco', import_names=['dizoo.mujoco.envs.mujoco_env']),
    env_manager=dict(type='base'),
    policy=dict(type='td3'),
)
hopper_td3_create_config = EasyDict(hopper_td3_create_config)
create_config = hopper_td3_create_config
