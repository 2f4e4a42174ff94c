"""Atari envs for ding (`env.type='atari'`)."""
from .atari_env import AtariEnv  # registers 'atari'
from .atari_wrappers import deepmind_wrapper_specs, make_ale, wrap_deepmind

__all__ = ['AtariEnv', 'deepmind_wrapper_specs', 'make_ale', 'wrap_deepmind']
