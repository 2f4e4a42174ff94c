"""VDN on the two-step game: the QMIX config with the VDN policy and model (team value = sum)."""
import copy

from easydict import EasyDict

from dizoo.matrix_game.config.two_step_game_qmix_config import create_config as _qmix_create
from dizoo.matrix_game.config.two_step_game_qmix_config import main_config as _qmix_main

main_config = copy.deepcopy(_qmix_main)
main_config.exp_name = 'two_step_game_vdn_seed0'
main_config.policy.model = EasyDict(dict(agent_num=2, obs_shape=5, action_shape=2, hidden_size_list=[64, 64]))
create_config = copy.deepcopy(_qmix_create)
create_config.policy.type = 'vdn'
