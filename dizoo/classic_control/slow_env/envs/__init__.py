"""`slow_cartpole`: CartPole plus ~0.5 ms of CPU work per step."""
from .slow_cartpole_env import BusyStep, SlowCartPoleEnv, make_slow_cartpole  # registers 'slow_cartpole'

__all__ = ['BusyStep', 'SlowCartPoleEnv', 'make_slow_cartpole']
