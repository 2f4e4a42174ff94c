"""CartPole envs for ding (`env.type='cartpole'`, and 'cartpole_pomdp': velocities masked)."""
from .cartpole_env import CartPoleEnv  # registers 'cartpole'
from .cartpole_pomdp_env import CartPolePOMDPEnv  # registers 'cartpole_pomdp'

__all__ = ['CartPoleEnv', 'CartPolePOMDPEnv']
