"""MiniGrid envs for ding (`env.type='minigrid'`)."""
from .minigrid_env import MiniGridEnv, make_minigrid  # registers 'minigrid'

__all__ = ['MiniGridEnv', 'make_minigrid']
