from ding.data.offline_dataset import d4rl_dataset_path  # where an env id's local dataset lives
from .d4rl_env import D4RLEnv, gymnasium_env_id  # importing registers env type 'd4rl'

__all__ = ['D4RLEnv', 'd4rl_dataset_path', 'gymnasium_env_id']
