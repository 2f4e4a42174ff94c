"""Recurrent VDN on MPE simple_spread with 3 agents (25-step episodes): ptz_simple_spread_qmix_config's
task and values with policy type 'vdn' (the team value is the sum of the agents' values, no mixing
network), so that the two value-decomposition methods meet on one task. ptz_simple_spread_vdn_config
is DI-engine's 5-agent, 100-step VDN task."""
import copy

from easydict import EasyDict

from dizoo.petting_zoo.config import ptz_simple_spread_qmix_config as qmix

main_config = EasyDict(copy.deepcopy(qmix.main_config))
main_config.exp_name = 'ptz_simple_spread_vdn_3agent_seed0'
main_config.policy.model.pop('mixer', None)  # the VDN model has no mixer to switch
create_config = EasyDict(copy.deepcopy(qmix.create_config))
create_config.policy.type = 'vdn'
ptz_simple_spread_vdn_3agent_config = main_config
ptz_simple_spread_vdn_3agent_create_config = create_config
