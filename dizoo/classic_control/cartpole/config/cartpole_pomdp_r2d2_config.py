"""R2D2 on the POMDP CartPole-v0 (`cartpole_pomdp`: only cart position and pole angle are
observed, the velocities are masked), where a memoryless DQN fails: the LSTM has to infer the
velocities from the observation history. `cartpole_pomdp_dqn_config` is DQN on the same env
for comparison (benchmarks/learning/r2d2_pomdp.py runs both with one budget).

From `cartpole_r2d2_config`, with shorter sequences (4 burn-in + 20 learned steps: the
velocities need only a few steps of memory, and a shorter unroll is a cheaper update) and a
faster soft target update (theta 0.01). Measured here (seed 0): 195 reached at ~25k env steps;
with the CartPole config's 2 + 40 steps and theta 0.001 the eval return was still ~25 at 20k."""
from easydict import EasyDict

from dizoo.classic_control.cartpole.config.cartpole_r2d2_config import main_config as _cartpole_r2d2
from ding.utils.dicts import deep_merge

cartpole_pomdp_r2d2_config = EasyDict(deep_merge(_cartpole_r2d2, dict(
    exp_name='cartpole_pomdp_r2d2_seed0',
    env=dict(env_id='CartPole-v0'),
    policy=dict(
        model=dict(obs_shape=2),
        burnin_step=4,
        learn_unroll_len=20,
        collect=dict(unroll_len=4 + 20),
        learn=dict(target_update_theta=0.01),
    ),
)))
main_config = cartpole_pomdp_r2d2_config

cartpole_pomdp_r2d2_create_config = EasyDict(dict(
    env=dict(type='cartpole_pomdp', import_names=['dizoo.classic_control.cartpole.envs.cartpole_pomdp_env']),
    env_manager=dict(type='base'),
    policy=dict(type='r2d2'),
))
create_config = cartpole_pomdp_r2d2_create_config
