"""MuJoCo envs for ding (`env.type='mujoco'`); the mujoco extra is imported only when an env is built."""
from .mujoco_env import MujocoEnv  # importing registers env type 'mujoco'

__all__ = ['MujocoEnv']
