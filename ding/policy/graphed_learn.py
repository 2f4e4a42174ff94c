"""`learn.cuda_graph`: a learner update replayed as one CUDA graph on a GPU.

A policy opts in by writing its update as `_update_tensors(inputs) -> outputs` (tensors in and
out, no host sync, no Python state changed inside; counters and target copies stay outside) and
setting `graph_safe_update = True`. It holds `GraphedUpdate(self._update_tensors)` when
`wants_cuda_graph(self)` says so, and calls that instead of `_update_tensors`: the update is
captured after a few eager warm-up updates and replayed from then on
(`ding/torch_utils/cuda_graph.py`). On the CPU it runs eagerly, with a warning, so one config
serves both.
"""
import logging
from typing import Any, Dict

import torch

logger = logging.getLogger(__name__)


def wants_cuda_graph(policy: Any) -> bool:
    """Whether `policy`'s updates will be captured: `learn.cuda_graph` and a learner on a GPU. Raises
    where it never could apply. Ask before making the optimizer: a captured one must be `capturable`."""
    if not policy._cfg.learn.get('cuda_graph', False):
        return False
    name = type(policy).__name__
    if not getattr(policy, 'graph_safe_update', False):
        raise ValueError(f'learn.cuda_graph=True: {name} has no graph-safe update (graph_safe_update is False)')
    if policy._device.type != 'cuda':
        logger.warning('learn.cuda_graph=True but %s learns on %s: updates run eagerly', name, policy._device)
        return False
    if policy._multi_gpu:
        raise ValueError('learn.cuda_graph=True cannot be combined with multi_gpu: the gradient all-reduce '
                         'is not captured')
    return True


def as_floats(stats: Dict[str, Any]) -> Dict[str, float]:
    """Scalar tensors (and plain numbers) -> python floats, with one device sync."""
    tensors = {k: v for k, v in stats.items() if isinstance(v, torch.Tensor)}
    values = torch.stack([v.detach().float().reshape(()) for v in tensors.values()]).tolist() if tensors else []
    floats = dict(zip(tensors.keys(), values))
    return {k: floats[k] if k in floats else float(v) for k, v in stats.items()}
