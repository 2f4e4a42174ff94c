"""SQIL with SAC on Pendulum-v1 from recorded demonstrations: `ding train --algo sqil_sac --env
Pendulum-v1 --dataset DEMOS`. DI-engine's `pendulum_sqil_sac_config`, with the demonstrations read
from `policy.collect.data_path` (a `ding collect` file) in place of an expert run from a checkpoint,
so no random-action steps are labelled as expert (`expert_random_collect_size` 0). Its
`policy.discount_factor` is left out: SAC reads `policy.learn.discount_factor`, which it sets too."""
import copy

from easydict import EasyDict

from dizoo.classic_control.pendulum.config.pendulum_sqil_sac_config import pendulum_sqil_sac_config, \
    pendulum_sqil_sac_create_config

main_config = EasyDict(copy.deepcopy(pendulum_sqil_sac_config))
main_config.exp_name = 'pendulum_sqil_sac_demos_seed0'
del main_config.policy['discount_factor']
main_config.policy.expert_random_collect_size = 0
main_config.policy.collect.model_path = None
main_config.policy.collect.data_path = None  # set by `ding train --dataset`

create_config = EasyDict(copy.deepcopy(pendulum_sqil_sac_create_config))
