"""Decision Transformer on a CartPole dataset (`ding train --algo dt --env CartPole-v1 --dataset
PATH`, or `ding -m serial_offline -c cartpole_dt_config.py`). The dataset is episodes, read as
windows of `context_len` steps with their returns-to-go; evaluation asks for `rtg_target` (the
most a CartPole-v1 episode can return) and stops an episode at `max_eval_ep_len`. A small model
(one block, 64 wide): CartPole's 4 numbers need no more. Solved at 195 (v0); the tuned pair
(`ding list`) asks 475 on v1."""
from easydict import EasyDict

cartpole_dt_config = dict(
    exp_name='cartpole_dt_seed0',
    env=dict(evaluator_env_num=5, n_evaluator_episode=5, stop_value=195),
    policy=dict(
        cuda=False,
        rtg_scale=100,
        rtg_target=500,
        max_eval_ep_len=500,
        context_len=10,
        learning_rate=1e-3,
        warmup_steps=100,
        model=dict(state_dim=4, act_dim=2, n_blocks=1, h_dim=64, context_len=10, n_heads=1, drop_p=0.1),
        learn=dict(batch_size=64),
        collect=dict(data_type='sequence', data_path='./cartpole_dt_data/episodes.hdf5'),
        eval=dict(evaluator=dict(eval_freq=250)),
    ),
)
cartpole_dt_config = EasyDict(cartpole_dt_config)
main_config = cartpole_dt_config

cartpole_dt_create_config = dict(
    env=dict(type='cartpole', import_names=['dizoo.classic_control.cartpole.envs.cartpole_env']),
    env_manager=dict(type='base'),
    policy=dict(type='dt'),
)
cartpole_dt_create_config = EasyDict(cartpole_dt_create_config)
create_config = cartpole_dt_create_config
