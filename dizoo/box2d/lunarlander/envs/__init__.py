"""LunarLander env for ding (`env.type='lunarlander'`)."""
from .lunarlander_env import LunarLanderEnv  # noqa: F401  (registers 'lunarlander')
