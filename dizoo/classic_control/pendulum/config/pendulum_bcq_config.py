"""BCQ on a Pendulum dataset (`ding -m serial_offline -c pendulum_bcq_config.py`), made locally
like `pendulum_cql_config`'s; smaller networks than BCQ's MuJoCo defaults. Solved at -250: on the
1,000-transition expert set in 1,500-2,000 updates on held-out seeds
(benchmarks/results/stop_values.json)."""
from easydict import EasyDict

pendulum_bcq_config = dict(
    exp_name='pendulum_bcq_seed0',
    env=dict(evaluator_env_num=5, act_scale=True, n_evaluator_episode=5, stop_value=-250),
    policy=dict(
        cuda=False,
        model=dict(
            obs_shape=3,
            action_shape=1,
            actor_head_hidden_size=[128, 128],
            critic_head_hidden_size=[128, 128],
            vae_hidden_dims=[128, 128],
            phi=0.05,
        ),
        learn=dict(
            train_epoch=30000,
            batch_size=128,
            learning_rate_q=3e-4,
            learning_rate_policy=3e-4,
            learning_rate_vae=3e-4,
            ignore_done=True,  # Pendulum never terminates
            target_theta=0.005,
            discount_factor=0.99,
            lmbda=0.75,
        ),
        collect=dict(data_type='hdf5', data_path='./pendulum_sac_data_generation/expert_demos.hdf5'),
        eval=dict(evaluator=dict(eval_freq=500)),
    ),
)
pendulum_bcq_config = EasyDict(pendulum_bcq_config)
main_config = pendulum_bcq_config

pendulum_bcq_create_config = dict(
    env=dict(type='pendulum', import_names=['dizoo.classic_control.pendulum.envs.pendulum_env']),
    env_manager=dict(type='base'),
    policy=dict(type='bcq', import_names=['ding.policy.bcq']),
)
pendulum_bcq_create_config = EasyDict(pendulum_bcq_create_config)
create_config = pendulum_bcq_create_config
