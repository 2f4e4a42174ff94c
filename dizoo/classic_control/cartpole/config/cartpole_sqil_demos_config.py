"""SQIL on CartPole-v1 from recorded demonstrations: `ding train --algo sqil --env CartPole-v1
--dataset DEMOS`. DI-engine's SQIL keys (`cartpole_sqil_config`: soft Q-learning whose rewards are
1 on the expert's transitions and 0 on the agent's) under the 'sqil' policy type, whose pipeline
reads the demonstrations from `policy.collect.data_path` (a `ding collect` file) where DI-engine's
example program runs an expert from a checkpoint (`collect.model_path`)."""
import copy

from easydict import EasyDict

from dizoo.classic_control.cartpole.config.cartpole_sqil_config import cartpole_sqil_config, cartpole_sqil_create_config

main_config = EasyDict(copy.deepcopy(cartpole_sqil_config))
main_config.exp_name = 'cartpole_sqil_demos_seed0'
main_config.env.env_id = 'CartPole-v1'
main_config.env.stop_value = 475
main_config.policy.collect.model_path = None
main_config.policy.collect.data_path = None  # set by `ding train --dataset`

create_config = EasyDict(copy.deepcopy(cartpole_sqil_create_config))
create_config.policy.type = 'sqil'
