"""Hybrid (parameterised) action tasks: a stand-in for gym-hybrid's `Moving-v0`, which is not on
PyPI. Importing this package registers `Moving-v0` with gymnasium, so `gymnasium.make('Moving-v0')`
works as `gym.make` does with gym-hybrid installed."""
import gymnasium

if 'Moving-v0' not in gymnasium.registry:
    gymnasium.register(id='Moving-v0', entry_point='dizoo.gym_hybrid.envs.moving_env:MovingEnv')
