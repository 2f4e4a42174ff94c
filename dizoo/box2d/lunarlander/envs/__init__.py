"""LunarLander env for ding (`env.type='lunarlander'`)."""
from .lunarlander_env import LunarLanderEnv  # importing registers env type 'lunarlander'

__all__ = ['LunarLanderEnv']
