"""Check a batch of actions against the action space once, vectorised, and split it into
the per-env actions handed to each env's `gym_step`.

`make_action_splitter(space, env_num)` returns `split(actions) -> list` for the space kind;
an action outside the space raises ValueError naming the env, the space and what was given.
Discrete actions come out as python ints (what gymnasium envs handle fastest), Box actions
as rows of one array.
"""
from typing import Any, Callable, List

import numpy as np
from gymnasium import spaces


def make_action_splitter(space: Any, env_num: int, clip: bool = False) -> Callable[[Any], List[Any]]:
    """`clip=True` clips Box actions into their bounds instead of raising."""
    if isinstance(space, spaces.Discrete):
        return _discrete_splitter(space, env_num)
    if isinstance(space, spaces.Box):
        return _box_splitter(space, env_num, clip)
    if isinstance(space, (spaces.MultiDiscrete, spaces.MultiBinary)):
        return _multi_splitter(space, env_num)
    return _unchecked_splitter(env_num)


def _as_array(actions: Any) -> np.ndarray:
    if type(actions) is np.ndarray:
        return actions
    if hasattr(actions, 'detach'):  # a torch tensor
        actions = actions.detach().cpu().numpy()
    return np.asarray(actions)


def _wrong_shape(actions: np.ndarray, expected: tuple, space: Any) -> ValueError:
    return ValueError(f'actions have shape {actions.shape}, expected {expected} (one action per env) for {space}')


def _first_bad(bad: np.ndarray) -> int:
    return int(np.flatnonzero(bad.reshape(len(bad), -1).any(axis=1))[0])


def _discrete_splitter(space: spaces.Discrete, env_num: int) -> Callable:
    low = int(space.start)
    high = low + int(space.n) - 1

    def split(actions: Any) -> List[int]:
        a = _as_array(actions)
        if a.shape == (env_num, 1):
            a = a.reshape(env_num)
        elif a.shape != (env_num, ):
            raise _wrong_shape(a, (env_num, ), space)
        if a.dtype.kind not in 'iu':
            raise ValueError(f'discrete actions must be integers, got dtype {a.dtype} for {space}')
        values = a.tolist()
        if min(values) < low or max(values) > high:
            env_id = next(i for i, v in enumerate(values) if not low <= v <= high)
            raise ValueError(f'env {env_id}: action {values[env_id]} is outside the action space {space}')
        return values

    return split


def _box_splitter(space: spaces.Box, env_num: int, clip: bool) -> Callable:
    shape = (env_num, ) + tuple(space.shape)
    low, high, dtype = space.low, space.high, space.dtype
    flat_ok = tuple(space.shape) == (1, )  # accept [n] for a one-dimensional action

    def split(actions: Any) -> List[np.ndarray]:
        a = _as_array(actions)
        if a.dtype != dtype:
            a = a.astype(dtype)
        if flat_ok and a.shape == (env_num, ):
            a = a.reshape(shape)
        elif a.shape != shape:
            raise _wrong_shape(a, shape, space)
        if clip:
            a = np.clip(a, low, high)
            if np.isnan(a).any():
                raise ValueError(f'env {_first_bad(np.isnan(a))}: action is NaN for {space}')
        else:
            bad = ~((a >= low) & (a <= high))  # NaN counts as outside
            if bad.any():
                env_id = _first_bad(bad)
                raise ValueError(f'env {env_id}: action {a[env_id]} is outside the action space {space}')
        return list(a)

    return split


def _multi_splitter(space: Any, env_num: int) -> Callable:
    shape = (env_num, ) + tuple(space.shape)
    if isinstance(space, spaces.MultiDiscrete):
        low = np.asarray(getattr(space, 'start', 0))
        high = low + space.nvec - 1
    else:
        low, high = 0, 1

    def split(actions: Any) -> List[np.ndarray]:
        a = _as_array(actions)
        if a.shape != shape:
            raise _wrong_shape(a, shape, space)
        if a.dtype.kind not in 'iub':
            raise ValueError(f'actions must be integers, got dtype {a.dtype} for {space}')
        bad = (a < low) | (a > high)
        if bad.any():
            env_id = _first_bad(bad)
            raise ValueError(f'env {env_id}: action {a[env_id]} is outside the action space {space}')
        return list(a)

    return split


def _unchecked_splitter(env_num: int) -> Callable:
    """Spaces with no cheap batch check (Tuple, Dict, unknown): only the count is checked."""

    def split(actions: Any) -> List[Any]:
        if len(actions) != env_num:
            raise ValueError(f'got {len(actions)} actions for {env_num} envs')
        if hasattr(actions, 'to_dict'):  # a Batch of hybrid actions: one plain dict per env (cheap to pickle)
            return [row.to_dict() for row in actions]
        return list(actions)

    return split
