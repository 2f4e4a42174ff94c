"""Behaviour cloning on a CartPole-v0 dataset (`ding -m serial_offline -c cartpole_bc_config.py`),
DI-engine's keys; the dataset as for `cartpole_cql_config`. Solved at 195."""
from easydict import EasyDict

cartpole_bc_config = dict(
    exp_name='cartpole_bc_seed0',
    env=dict(collector_env_num=8, evaluator_env_num=5, n_evaluator_episode=5, stop_value=195),
    policy=dict(
        cuda=False,
        continuous=False,
        model=dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[64, 64, 128]),
        learn=dict(
            batch_size=64,
            learning_rate=0.01,
            learner=dict(hook=dict(save_ckpt_after_iter=1000)),
            train_epoch=20,
        ),
        collect=dict(data_type='hdf5', data_path='./cartpole_qrdqn_generation_data_seed0/expert_demos.hdf5'),
        eval=dict(evaluator=dict(eval_freq=40)),
    ),
)
cartpole_bc_config = EasyDict(cartpole_bc_config)
main_config = cartpole_bc_config

cartpole_bc_create_config = dict(
    env=dict(type='cartpole', import_names=['dizoo.classic_control.cartpole.envs.cartpole_env']),
    env_manager=dict(type='base'),
    policy=dict(type='bc'),
)
cartpole_bc_create_config = EasyDict(cartpole_bc_create_config)
create_config = cartpole_bc_create_config
