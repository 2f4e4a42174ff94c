"""Dict observations in the form a user's encoder gets them.

Observations are cast to float32, and per-sample leaves of shape (1,) are concatenated into one
(B,) vector (everything else is stacked). Encoders written for DI-engine (e.g.
`ding/example/ppo_with_complex_obs.py`, which `unsqueeze(-1)`s such leaves) rely on both.
Our own models read stacked arrays as they are; only a user-given encoder over dict observations
gets this view."""
from typing import Any, Dict, Mapping

import numpy as np
import torch


def collated_dict_obs(obs: Any) -> Any:
    """`obs` unchanged when it is one array; else a nested dict of float32 tensors, with
    (B, 1) leaves as (B,)."""
    if isinstance(obs, torch.Tensor) or not hasattr(obs, 'items'):
        return obs
    return _collate(obs)


def _collate(obs: Mapping) -> Dict[str, Any]:
    out = {}
    for key, value in obs.items():
        if hasattr(value, 'items') and not isinstance(value, torch.Tensor):
            out[key] = _collate(value)
            continue
        leaf = torch.as_tensor(np.asarray(value)) if not isinstance(value, torch.Tensor) else value
        leaf = leaf.float()
        out[key] = leaf.squeeze(-1) if leaf.dim() == 2 and leaf.shape[-1] == 1 else leaf
    return out
