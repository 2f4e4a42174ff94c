"""CartPole env for ding (`env.type='cartpole'`)."""
from .cartpole_env import CartPoleEnv  # registers 'cartpole'

__all__ = ['CartPoleEnv']
