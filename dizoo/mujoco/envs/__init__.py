"""MuJoCo envs for ding (`env.type='mujoco'`); the mujoco extra is imported only when an env is built."""
from .mujoco_env import MujocoEnv  # noqa: F401  (registers 'mujoco')
