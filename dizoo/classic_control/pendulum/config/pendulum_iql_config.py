"""IQL on a Pendulum dataset (`ding -m serial_offline -c pendulum_iql_config.py`), made
locally like `pendulum_cql_config`'s. Solved at -250.

Batch 256: on the local Pendulum medium dataset, 5,000 updates end at -288 (median of 3 seeds),
d3rlpy's IQL at -329, at 3.3 ms an update against its 14.4
(benchmarks/results/d3rlpy_offline_pendulum*.json; 256-wide layers gave -487 at 5.2 ms)."""
from easydict import EasyDict

pendulum_iql_config = dict(
    exp_name='pendulum_iql_seed0',
    env=dict(evaluator_env_num=5, act_scale=True, n_evaluator_episode=5, stop_value=-250),
    policy=dict(
        cuda=False,
        model=dict(
            obs_shape=3,
            action_shape=1,
            twin_critic=True,
            action_space='reparameterization',
            actor_head_hidden_size=128,
            critic_head_hidden_size=128,
        ),
        learn=dict(
            train_epoch=30000,
            batch_size=256,  # 128: -486 after 5,000 updates against d3rlpy's -329
            learning_rate_q=3e-4,
            learning_rate_policy=3e-4,
            learning_rate_v=3e-4,
            ignore_done=True,  # Pendulum never terminates
            target_theta=0.005,
            discount_factor=0.99,
            expectile=0.7,
            beta=3.0,
        ),
        collect=dict(data_type='hdf5', data_path='./pendulum_sac_data_generation/expert_demos.hdf5'),
        eval=dict(evaluator=dict(eval_freq=500)),
    ),
)
pendulum_iql_config = EasyDict(pendulum_iql_config)
main_config = pendulum_iql_config

pendulum_iql_create_config = dict(
    env=dict(type='pendulum', import_names=['dizoo.classic_control.pendulum.envs.pendulum_env']),
    env_manager=dict(type='base'),
    policy=dict(type='iql', import_names=['ding.policy.iql']),
)
pendulum_iql_create_config = EasyDict(pendulum_iql_create_config)
create_config = pendulum_iql_create_config
