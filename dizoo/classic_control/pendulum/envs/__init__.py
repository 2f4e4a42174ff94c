"""Pendulum env for ding (`env.type='pendulum'`)."""
from .pendulum_env import PendulumEnv  # importing registers env type 'pendulum'

__all__ = ['PendulumEnv']
