"""SQIL on CartPole-v0: the keys and values of DI-engine's `cartpole_sqil_config` (its
`ding/example/sqil.py` runs on it), which are `cartpole_sql_config`'s plus the expert: SQIL is
soft Q-learning on relabelled rewards. The demonstrations come online from an expert whose
weights are read from `policy.collect.model_path`: the `eval.pth.tar` that `CkptSaver` writes for
the DQN example (`cartpole_dqn_config`, the same dueling [128, 128, 64] network)."""
import copy

from easydict import EasyDict

from dizoo.classic_control.cartpole.config.cartpole_sql_config import cartpole_sql_config, cartpole_sql_create_config

cartpole_sqil_config = EasyDict(copy.deepcopy(cartpole_sql_config))
cartpole_sqil_config.exp_name = 'cartpole_sqil_seed0'
# the expert's weights, relative to the working directory
cartpole_sqil_config.policy.collect.model_path = 'cartpole_dqn_seed0/ckpt/eval.pth.tar'
main_config = cartpole_sqil_config

# DI-engine's policy type here is 'sql'; 'sqil' (SQILPolicy) is the same update plus per-half monitors
cartpole_sqil_create_config = EasyDict(copy.deepcopy(cartpole_sql_create_config))
create_config = cartpole_sqil_create_config
