"""FrozenLake env for ding (`env.type='frozen_lake'`)."""
from .frozen_lake_env import FrozenLakeEnv  # registers 'frozen_lake'

__all__ = ['FrozenLakeEnv']
