"""`env.type='two_step_game'`: the QMIX paper's two-step cooperative game."""
from .two_step_game_env import TwoStepGameEnv  # registers 'two_step_game'

__all__ = ['TwoStepGameEnv']
