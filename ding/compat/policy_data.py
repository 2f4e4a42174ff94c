"""DI-engine's data forms, for policies written against its protocol (ding/compat/policy.py) and
the collectors that record their transitions (transitions.py): treetensor-like
transitions (`AttrDict` of tensors), `{env_id: obs}` dicts, lists of transition dicts."""
from typing import Any, Dict, Mapping, Sequence

import numpy as np
import torch

from ding.data.batch import Batch


class AttrDict(dict):
    """A dict with attribute access (`t.obs`), as DI-engine's treetensor transitions allow;
    a plain dict underneath, so it pickles, copies and collates as one."""
    __slots__ = ()

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f'no field {key!r}; fields: {sorted(self)}') from None

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value

    def __delattr__(self, key: str) -> None:
        del self[key]


def as_tensor_tree(x: Any) -> Any:
    """DI-engine keeps transitions as treetensors: numpy and python scalars become tensors,
    dicts get attribute access."""
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, Mapping):
        return AttrDict({k: as_tensor_tree(v) for k, v in x.items()})
    if isinstance(x, np.ndarray) and x.dtype != object:
        return torch.from_numpy(np.ascontiguousarray(x))
    if isinstance(x, (np.generic, bool, int, float)):
        return torch.as_tensor(x)
    return x


def row_of(columns: Mapping[str, Any], i: int) -> 'AttrDict':
    """Row `i` of a Batch's columns, nested columns as nested dicts (attribute access throughout)."""
    return AttrDict({k: (row_of(v._cols, i) if isinstance(v, Batch) else v[i]) for k, v in columns.items()})


def obs_by_env(obs: Any) -> Dict[int, Any]:
    """`{i: obs[i]}` of a stacked observation as float32 tensors, as DI-engine's collector and
    evaluator feed a policy (a dict observation gives one dict per env)."""
    if isinstance(obs, Batch):
        cols = obs.to_torch().apply(lambda t: t.float())  # DI-engine casts every leaf to float32
        return {i: row_of(cols._cols, i) for i in range(len(obs))}
    obs = torch.as_tensor(np.asarray(obs) if not isinstance(obs, torch.Tensor) else obs).float()
    return {i: obs[i] for i in range(len(obs))}


def transition_list(data: Any) -> Any:
    """What DI-engine's `_forward_learn` takes: a list of transition dicts of torch tensors
    (a dict of named buffers' samples maps to a dict of such lists)."""
    if isinstance(data, Batch):
        cols = data.to_torch('cpu')._cols
        return [row_of(cols, i) for i in range(len(data))]
    if isinstance(data, Mapping) and data and all(isinstance(v, (Batch, list)) for v in data.values()):
        return {k: transition_list(v) for k, v in data.items()}
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return [getattr(d, 'data', d) if not isinstance(d, Mapping) else d for d in data]
    return data


class PolicyOutputs(dict):
    """`forward_batch`'s result for a DI-engine policy: `{'action': np [B, ...]}` as our
    collectors read it, plus `per_env` (the policy's own `{i: output}`) and `obs` (the
    tensors it acted on) for `_process_transition`."""

    def __init__(self, per_env: Mapping[int, Any], obs: Mapping[int, Any]) -> None:
        super().__init__(action=np.stack([_to_numpy(out['action']) for out in per_env.values()]))
        self.per_env, self.obs = per_env, obs


def _to_numpy(x: Any) -> np.ndarray:
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)
