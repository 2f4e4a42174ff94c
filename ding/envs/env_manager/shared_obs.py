"""Dict observations (gymnasium `Dict` spaces) in the subprocess manager's shared memory: one
shared array per leaf, seen by the manager and the workers as a nested `Batch` whose columns
are those arrays, so `batch[i] = obs_dict` in a worker writes each leaf in place and
`batch.copy()` in the manager reads them all. Plain array observations keep their single
array and none of this is on their path."""
from collections.abc import Mapping
from typing import Any, Dict, List

import numpy as np
from gymnasium import spaces


def dict_leaves(n: int, space: Any, root: Any, prefix: str) -> List[tuple]:
    """(path 'a/b', ((n, *shape), dtype)) per leaf; float64 leaves stored as float32, as the
    serial manager stacks them."""
    out = []
    for key, sub in space.spaces.items():
        path = f'{prefix}{key}'
        if '/' in str(key):
            raise ValueError(f'SubprocessEnvManagerV2: dict observation key {key!r} contains "/"')
        if isinstance(sub, spaces.Dict):
            out += dict_leaves(n, sub, root, path + '/')
        elif isinstance(sub, (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)):
            dtype = np.dtype(sub.dtype)
            out.append((path, ((n, ) + tuple(sub.shape), 'float32' if dtype == np.float64 else dtype.str)))
        else:
            raise ValueError(f'SubprocessEnvManagerV2 stores dict observations whose leaves are Box, Discrete, '
                             f'MultiDiscrete or MultiBinary; {path!r} is {sub} (in {root}); use the base_v2 manager')
    return out


def obs_arrays(arrays: Dict[str, np.ndarray], side: str) -> Any:
    """The `side` ('next_obs' / 'ready_obs') observations: one array, or for dict observations
    a nested Batch whose columns are the shared leaf arrays (row writes go to shared memory)."""
    if side in arrays:
        return arrays[side]
    from ding.data.batch import Batch
    tree: Dict[str, Any] = {}
    for name, array in arrays.items():
        if name.startswith(side + '/'):
            *parents, leaf = name[len(side) + 1:].split('/')
            node = tree
            for p in parents:
                node = node.setdefault(p, {})
            node[leaf] = array

    def wrap(node: Dict[str, Any]) -> Any:
        return Batch.wrap({k: wrap(v) if isinstance(v, dict) else v for k, v in node.items()})

    return wrap(tree)


def copy_row(row: Any) -> Any:
    """A copy of one env's row of the shared observations (a nested dict for dict ones)."""
    if isinstance(row, np.ndarray):
        return row.copy()
    return {k: copy_row(v) if isinstance(v, Mapping) else np.array(v) for k, v in row.items()}


def obs_shape_of(spec: Dict[str, tuple]) -> tuple:
    """The per-env observation shape workers check: () for dict observations (as `np.shape`
    gives for a dict; their keys and leaf shapes are checked by the writes)."""
    return tuple(spec['next_obs'][0][1:]) if 'next_obs' in spec else ()
