"""MinAtar envs for ding (`env.type='minatar'`)."""
from .minatar_env import MINATAR_IDS, MinAtarEnv, make_minatar  # registers 'minatar'

__all__ = ['MINATAR_IDS', 'MinAtarEnv', 'make_minatar']
