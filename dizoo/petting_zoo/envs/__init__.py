"""`env.type='petting_zoo'`: MPE scenarios as ding multi-agent envs."""
from .petting_zoo_simple_spread_env import PettingZooEnv  # registers 'petting_zoo'

__all__ = ['PettingZooEnv']
