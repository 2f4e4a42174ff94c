"""TD3+BC on a Pendulum dataset (`ding -m serial_offline -c pendulum_td3_bc_config.py`).
The dataset is made locally, like `pendulum_cql_config`'s; observations are normalised with
the dataset's statistics (`norm_obs.offline_stats`), and so are the evaluator's. Solved at -250:
on the 1,000-transition expert set in 1,200-2,300 updates on held-out seeds
(benchmarks/results/stop_values.json).

Batch 256 and the paper's learning rates (3e-4): on the local Pendulum medium dataset, 5,000
updates end at -638 (median of 3 seeds), d3rlpy's TD3+BC at -639, at 3.0 ms an update against its
9.7 (benchmarks/results/d3rlpy_offline_pendulum*.json; 256-wide layers gave -751 at 4.3 ms)."""
from easydict import EasyDict

pendulum_td3_bc_config = dict(
    exp_name='pendulum_td3_bc_seed0',
    env=dict(
        collector_env_num=8,
        evaluator_env_num=5,
        norm_obs=dict(use_norm=True, offline_stats=dict(use_offline_stats=True)),
        act_scale=True,
        n_evaluator_episode=5,
        stop_value=-250,
    ),
    policy=dict(
        cuda=False,
        priority=False,
        random_collect_size=800,
        model=dict(
            obs_shape=3,
            action_shape=1,
            twin_critic=True,
            action_space='regression',
            actor_head_hidden_size=128,
            critic_head_hidden_size=128,
        ),
        learn=dict(
            train_epoch=30000,
            batch_size=256,  # with 128 and DI-engine's rates (1e-4, 1e-3): -885 against d3rlpy's -639
            learning_rate_actor=3e-4,
            learning_rate_critic=3e-4,
            # Pendulum never terminates: every transition bootstraps
            ignore_done=True,
            target_theta=0.005,
            discount_factor=0.99,
            actor_update_freq=2,
            noise=True,
            noise_sigma=0.2,
            noise_range=dict(min=-0.5, max=0.5),
            alpha=2.5,
        ),
        collect=dict(
            noise_sigma=0.1,
            data_type='hdf5',
            data_path='./pendulum_sac_data_generation/expert_demos.hdf5',
        ),
        eval=dict(evaluator=dict(eval_freq=100)),
        other=dict(replay_buffer=dict(replay_buffer_size=20000)),
    ),
)
pendulum_td3_bc_config = EasyDict(pendulum_td3_bc_config)
main_config = pendulum_td3_bc_config

pendulum_td3_bc_create_config = dict(
    env=dict(type='pendulum', import_names=['dizoo.classic_control.pendulum.envs.pendulum_env']),
    env_manager=dict(type='base'),
    policy=dict(type='td3_bc', import_names=['ding.policy.td3_bc']),
)
pendulum_td3_bc_create_config = EasyDict(pendulum_td3_bc_create_config)
create_config = pendulum_td3_bc_create_config
