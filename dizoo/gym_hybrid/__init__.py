"""Hybrid (parameterised) action tasks: stand-ins for gym-hybrid's `Moving-v0`, `Sliding-v0` and
`HardMove-v0` (gym-hybrid is not on PyPI). Importing this package registers them with gymnasium,
so `gymnasium.make('Moving-v0')` works as `gym.make` does with gym-hybrid installed
(`gymnasium.make('HardMove-v0', num_actuators=n)` as well)."""
import gymnasium

for _id, _entry in (('Moving-v0', 'moving_env:MovingEnv'), ('Sliding-v0', 'sliding_env:SlidingEnv'),
                    ('HardMove-v0', 'hard_move_env:HardMoveEnv')):
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point=f'dizoo.gym_hybrid.envs.{_entry}')
