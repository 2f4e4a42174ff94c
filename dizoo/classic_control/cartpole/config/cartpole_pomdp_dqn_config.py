"""DQN on the POMDP CartPole-v0 (velocities masked): `cartpole_dqn_config` with the env
swapped. A feed-forward Q-network sees one [x, theta] observation and cannot tell which way
the pole moves, so it stays far below 195 (the baseline for `cartpole_pomdp_r2d2_config`)."""
from easydict import EasyDict

from dizoo.classic_control.cartpole.config.cartpole_dqn_config import main_config as _cartpole_dqn
from ding.utils.dicts import deep_merge

cartpole_pomdp_dqn_config = EasyDict(deep_merge(_cartpole_dqn, dict(
    exp_name='cartpole_pomdp_dqn_seed0',
    env=dict(env_id='CartPole-v0'),
    policy=dict(model=dict(obs_shape=2)),
)))
main_config = cartpole_pomdp_dqn_config

cartpole_pomdp_dqn_create_config = EasyDict(dict(
    env=dict(type='cartpole_pomdp', import_names=['dizoo.classic_control.cartpole.envs.cartpole_pomdp_env']),
    env_manager=dict(type='base'),
    policy=dict(type='dqn'),
))
create_config = cartpole_pomdp_dqn_create_config
