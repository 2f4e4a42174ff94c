"""The checks behind `ding check-env`: does an env follow gymnasium 1.x's API the way ding's
env managers and policies read it? Each problem is one `Problem`, reported once (an obs shape
wrong at reset and at every step is one problem, named where it was first seen).

What is checked, in order (a broken call signature stops the checks that need that call):
spaces are gymnasium spaces; `reset(seed=...)` returns `(obs, info)`; `step(action)` returns
`(obs, reward, terminated, truncated, info)`; every obs matches the observation space in
type, shape, dtype and bounds and is finite; rewards are finite real numbers; flags are bools;
the same seed and actions give the same trajectory; and the step cost in steps per second.
"""
import time
from dataclasses import dataclass
from numbers import Real
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

DETERMINISM_STEPS = 20  # a few steps catch an RNG that reset(seed=...) does not reseed


@dataclass(frozen=True)
class Problem:
    kind: str  # one of: spaces, signature, obs type, obs shape, obs dtype, obs bounds, non-finite, reward, flags, determinism, exception
    message: str

    def __str__(self) -> str:
        return f'{self.kind}: {self.message}'


@dataclass
class CheckReport:
    problems: List[Problem]
    steps_per_second: Optional[float]  # None when step() could not be timed
    timed_steps: int


class _Findings:
    """Problems keyed by (kind, subject): the first sighting wins, later ones of the same key are the same bug."""

    def __init__(self) -> None:
        self._by_key: Dict[Tuple[str, str], Problem] = {}

    def add(self, kind: str, subject: str, message: str) -> None:
        self._by_key.setdefault((kind, subject), Problem(kind, message))

    def kinds(self) -> set:
        return {kind for kind, _ in self._by_key}

    def list(self) -> List[Problem]:
        return list(self._by_key.values())


def _check_obs(space: spaces.Space, obs: Any, where: str, path: str, found: _Findings) -> None:
    name = f'obs{path}'
    if isinstance(space, spaces.Dict):
        if not isinstance(obs, dict):
            found.add('obs type', path, f'{where}: {name} is a {type(obs).__name__}, observation_space is a Dict')
            return
        if set(obs) != set(space.spaces):
            found.add('obs type', path, f'{where}: {name} has keys {sorted(obs)}, observation_space has '
                      f'{sorted(space.spaces)}')
        for key in space.spaces.keys() & obs.keys():
            _check_obs(space.spaces[key], obs[key], where, f'{path}[{key!r}]', found)
    elif isinstance(space, spaces.Box):
        _check_box_obs(space, obs, where, path, found)
    elif isinstance(space, spaces.Discrete):
        if not isinstance(obs, (int, np.integer)) or isinstance(obs, bool):
            found.add('obs type', path, f'{where}: {name} is a {type(obs).__name__}, a Discrete space needs an int')
        elif not space.contains(obs):
            found.add('obs bounds', path, f'{where}: {name} = {obs} is outside {space}')
    elif not space.contains(obs):
        found.add('obs type', path, f'{where}: {name} is not in observation_space {space}')


def _check_box_obs(space: spaces.Box, obs: Any, where: str, path: str, found: _Findings) -> None:
    name = f'obs{path}'
    if not isinstance(obs, np.ndarray):
        found.add('obs type', path, f'{where}: {name} is a {type(obs).__name__}, a Box space needs a numpy array')
        return
    if obs.shape != space.shape:
        found.add('obs shape', path, f'{where}: {name} has shape {obs.shape}, observation_space has {space.shape}')
        return
    if obs.dtype != space.dtype:
        found.add('obs dtype', path, f'{where}: {name} has dtype {obs.dtype}, observation_space has {space.dtype}')
    if np.issubdtype(obs.dtype, np.floating) and not np.isfinite(obs).all():
        found.add('non-finite', f'obs{path}', f'{where}: {name} holds {_non_finite(obs)}')
    finite = np.isfinite(obs) if np.issubdtype(obs.dtype, np.floating) else np.ones(obs.shape, bool)
    outside = finite & ((obs < space.low) | (obs > space.high))
    if outside.any():
        index = tuple(int(i) for i in np.argwhere(outside)[0])
        found.add('obs bounds', path, f'{where}: {name}{list(index)} = {obs[index]} is outside '
                  f'[{space.low[index]}, {space.high[index]}]')


def _non_finite(values: np.ndarray) -> str:
    labels = [label for label, hit in (('nan', np.isnan(values).any()), ('inf', np.isinf(values).any())) if hit]
    return ' and '.join(labels)


def _check_reset(env: Any, seed: int, found: _Findings) -> Optional[Any]:
    try:
        out = env.reset(seed=seed)
    except TypeError as err:
        found.add('signature', 'reset', f'reset(seed={seed}) raised TypeError ({err}); gymnasium 1.x reset '
                  'takes seed= and options= keywords')
        return None
    if not (isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], dict)):
        found.add('signature', 'reset', f'reset() returned {_describe(out)}; gymnasium 1.x reset returns '
                  '(obs, info) with info a dict')
        return None
    _check_obs(env.observation_space, out[0], 'reset', '', found)
    return out[0]


def _check_step(env: Any, action: Any, index: int, found: _Findings) -> Optional[Tuple]:
    out = env.step(action)
    if not (isinstance(out, tuple) and len(out) == 5):
        found.add('signature', 'step', f'step() returned {_describe(out)}; gymnasium 1.x step returns '
                  '(obs, reward, terminated, truncated, info)')
        return None
    obs, reward, terminated, truncated, info = out
    where = f'step {index}'
    _check_obs(env.observation_space, obs, where, '', found)
    if not isinstance(reward, Real) or isinstance(reward, bool):
        found.add('reward', 'type', f'{where}: reward is a {type(reward).__name__}, not a real number')
    elif not np.isfinite(reward):
        found.add('non-finite', 'reward', f'{where}: reward is {reward}')
    for flag_name, flag in (('terminated', terminated), ('truncated', truncated)):
        if not isinstance(flag, (bool, np.bool_)):
            found.add('flags', flag_name, f'{where}: {flag_name} is a {type(flag).__name__}, not a bool')
    if not isinstance(info, dict):
        found.add('signature', 'info', f'{where}: info is a {type(info).__name__}, not a dict')
    return out


def _describe(out: Any) -> str:
    return f'a {len(out)}-tuple' if isinstance(out, tuple) else f'a {type(out).__name__}'


def _rollout(env: Any, seed: int, actions: List[Any], found: _Findings) -> Optional[List[Tuple[Any, float]]]:
    """(obs, reward) after reset(seed) and each action, stopping at the episode's end; None when a call broke."""
    obs = _check_reset(env, seed, found)
    if obs is None:
        return None
    trajectory = [(obs, 0.0)]
    for index, action in enumerate(actions):
        out = _check_step(env, action, index, found)
        if out is None:
            return None
        trajectory.append((out[0], out[1]))
        if out[2] or out[3]:
            break
    return trajectory


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
    except TypeError:  # equal_nan on a non-numeric array
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def _check_determinism(first: List, second: List, seed: int, found: _Findings) -> None:
    for index, ((obs_a, rew_a), (obs_b, rew_b)) in enumerate(zip(first, second)):
        if not (_same(obs_a, obs_b) and _same(rew_a, rew_b)):
            where = 'the first obs' if index == 0 else f'step {index - 1}'
            found.add('determinism', 'trajectory', f'two runs with reset(seed={seed}) and the same actions differ '
                      f'at {where}: the env draws randomness that reset(seed=...) does not seed')
            return
    if len(first) != len(second):
        found.add('determinism', 'trajectory', f'two runs with reset(seed={seed}) and the same actions end after '
                  f'{len(first) - 1} and {len(second) - 1} steps')


def _time_steps(env: Any, seed: int, steps: int) -> float:
    env.reset(seed=seed)
    env.action_space.seed(seed)
    start = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    return steps / max(time.perf_counter() - start, 1e-9)


def check_env(make_env: Callable[[], Any], seed: int = 0, timed_steps: int = 1000) -> CheckReport:
    """Build an env with `make_env()` and check it (see the module docstring); closes the env."""
    found = _Findings()
    try:
        env = make_env()
    except Exception as err:  # the factory's own bug: nothing to check
        found.add('exception', 'factory', f'{type(err).__name__} raised while building the env: {err}')
        return CheckReport(found.list(), None, 0)
    phase = 'reading the spaces'
    try:
        from ding.envs.base_env import BaseEnv
        if isinstance(env, BaseEnv):  # its reset/step are ding's own API, not gymnasium's
            found.add('signature', 'ding env', f'the factory returned a ding {type(env).__name__}; return the '
                      'gymnasium env it wraps (DingEnvWrapper(env) is what a pipeline builds from it)')
            return CheckReport(found.list(), None, 0)
        for attr in ('observation_space', 'action_space'):
            space = getattr(env, attr, None)
            if not isinstance(space, spaces.Space):
                found.add('spaces', attr, f'env.{attr} is {_describe(space) if space is not None else "missing"}, '
                          'not a gymnasium.spaces.Space')
        if 'spaces' in found.kinds():
            return CheckReport(found.list(), None, 0)
        phase = 'sampling actions'
        env.action_space.seed(seed)
        actions = [env.action_space.sample() for _ in range(DETERMINISM_STEPS)]
        phase = 'the first seeded rollout'
        first = _rollout(env, seed, actions, found)
        phase = 'the second seeded rollout'
        second = _rollout(env, seed, actions, found) if first is not None else None
        if second is None:
            return CheckReport(found.list(), None, 0)
        _check_determinism(first, second, seed, found)
        phase = f'{timed_steps} timed steps'
        return CheckReport(found.list(), _time_steps(env, seed, timed_steps), timed_steps)
    except Exception as err:  # the env's own bug: one line naming the phase, not our traceback
        found.add('exception', phase, f'{type(err).__name__} raised during {phase}: {err}')
        return CheckReport(found.list(), None, 0)
    finally:
        close = getattr(env, 'close', None)
        if callable(close):
            close()
