"""Stack per-env observations into one array, checking their shape once per batch.

Observations become float32, except uint8 ones, which stay uint8: pixel frames (Atari with
`scale=False`) then cross env workers, replay and Ray at a quarter of float32's bytes, and the
models' conv encoder divides them by 255 (`ding.model.common.ConvEncoder`).

`np.array(list_of_arrays, dtype=...)` converts and checks in C (3x faster than
`np.stack` for small observations); only when it fails, or the
stacked shape is wrong, is each observation inspected to name the env at fault."""
from collections.abc import Mapping
from typing import Any, Sequence, Tuple

import numpy as np


def obs_dtype(obs: Any) -> type:
    """The dtype an observation (or an observation space) is kept as: uint8 stays uint8,
    anything else becomes float32."""
    return np.uint8 if getattr(obs, 'dtype', None) == np.uint8 else np.float32


def stack_obs(obs: Sequence[Any], shape: Tuple[int, ...], env_ids: Sequence[int]) -> Any:
    """`[len(obs), *shape]` as float32 (uint8 if env 0's is uint8); ValueError naming the env whose
    observation is off.
    Dict observations (a gymnasium Dict space) stack into a nested `Batch` of such arrays."""
    if isinstance(obs[0], Mapping):
        return stack_dict_obs(obs, env_ids)
    try:
        out = np.array(obs, dtype=obs_dtype(obs[0]))
    except (ValueError, TypeError):
        out = None
    if out is None or out.shape[1:] != shape:
        for env_id, o in zip(env_ids, obs):
            check_obs(env_id, o, shape)
        raise ValueError(f'observations could not be stacked to shape {shape}')
    return out


def check_obs(env_id: int, obs: Any, shape: Tuple[int, ...]) -> Any:
    """One observation as float32 (uint8 kept), or ValueError naming the env, the expected and got shape
    (a dict observation is checked when stacked)."""
    if isinstance(obs, Mapping):
        return obs
    try:
        arr = np.asarray(obs, dtype=obs_dtype(obs))
    except (ValueError, TypeError) as err:
        raise ValueError(f'env {env_id} returned an observation that is not a numeric array '
                         f'(expected shape {shape}): {err}') from None
    if arr.shape != shape:
        raise ValueError(f'env {env_id} returned an observation of shape {arr.shape}, expected shape {shape}')
    return arr


def stack_dict_obs(obs: Sequence[Mapping], env_ids: Sequence[int]) -> Any:
    """A nested Batch `[len(obs), ...]` per key (float64 leaves as float32, others kept);
    ValueError naming the env whose observation has other keys or shapes."""
    from ding.data.batch import Batch
    try:
        batch = Batch.from_rows(list(obs))
    except (ValueError, KeyError, TypeError) as err:
        keys = sorted(obs[0])
        for env_id, o in zip(env_ids, obs):
            if not isinstance(o, Mapping) or sorted(o) != keys:
                got = sorted(o) if isinstance(o, Mapping) else type(o).__name__
                raise ValueError(f'env {env_id} returned an observation with keys {got}, expected {keys}') from None
        raise ValueError(f'dict observations could not be stacked: {err}') from None
    return batch.apply(lambda v: v.astype(np.float32) if v.dtype == np.float64 else v)
