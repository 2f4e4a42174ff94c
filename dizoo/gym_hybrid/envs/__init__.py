"""The hybrid-action env (`env.type='gym_hybrid'`) and its gymnasium cores `MovingEnv`,
`SlidingEnv` and `HardMoveEnv`."""
from .hard_move_env import HardMoveEnv
from .moving_env import HybridActionScale, MovingEnv
from .sliding_env import SlidingEnv

__all__ = ["HardMoveEnv", "HybridActionScale", "MovingEnv", "SlidingEnv"]
