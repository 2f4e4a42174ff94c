"""Pendulum env for ding (`env.type='pendulum'`)."""
from .pendulum_env import PendulumEnv  # noqa: F401  (registers 'pendulum')
