"""The hybrid-action env (`env.type='gym_hybrid'`) and its gymnasium core `MovingEnv`."""
from .moving_env import HybridActionScale, MovingEnv

__all__ = ["HybridActionScale", "MovingEnv"]
