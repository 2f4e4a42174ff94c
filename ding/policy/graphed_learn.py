"""`learn.cuda_graph`: a learner update replayed as one CUDA graph on a GPU.

A policy opts in by writing its update as `_update_tensors(inputs) -> outputs` (tensors in and
out, no host sync, no Python state changed inside; counters and target copies stay outside) and
setting `graph_safe_update = True`. With `learn.cuda_graph=True` and the learner on a GPU, the
update is captured after a few eager warm-up updates and replayed from then on
(`ding/torch_utils/cuda_graph.py`). On the CPU it runs eagerly, with a warning, so one config
serves both.
"""
import logging
from typing import Any, Dict

import torch

from ding.torch_utils.cuda_graph import GraphedUpdate

logger = logging.getLogger(__name__)


class GraphedLearnMixin:
    graph_safe_update = False  # True where `_update_tensors` is pure tensor work (see the module docstring)

    def _wants_cuda_graph(self) -> bool:
        """Whether updates will be captured: `learn.cuda_graph` and a learner on a GPU. Raises where
        it never could apply. Ask before making the optimizer: a captured one must be `capturable`."""
        if not self._cfg.learn.get('cuda_graph', False):
            return False
        name = type(self).__name__
        if not self.graph_safe_update:
            raise ValueError(f'learn.cuda_graph=True: {name} has no graph-safe update (graph_safe_update is False)')
        if self._device.type != 'cuda':
            logger.warning('learn.cuda_graph=True but %s learns on %s: updates run eagerly', name, self._device)
            return False
        if self._multi_gpu:
            raise ValueError('learn.cuda_graph=True cannot be combined with multi_gpu: the gradient all-reduce '
                             'is not captured')
        return True

    def _setup_graphed_update(self, graphed: bool) -> None:
        self._graphed_update = GraphedUpdate(self._update_tensors) if graphed else None

    def _run_update(self, inputs: Any) -> Dict[str, torch.Tensor]:
        """`_update_tensors(inputs)`, eagerly or replayed as a CUDA graph."""
        if getattr(self, '_graphed_update', None) is None:
            return self._update_tensors(inputs)
        return self._graphed_update(inputs)

    def _capture_again(self) -> None:
        """After the optimizer state was replaced (a loaded checkpoint): the graph read the old tensors."""
        if getattr(self, '_graphed_update', None) is not None:
            self._graphed_update = GraphedUpdate(self._update_tensors)

    @staticmethod
    def _to_floats(stats: Dict[str, Any]) -> Dict[str, float]:
        """Scalar tensors (and plain numbers) -> python floats, with one device sync."""
        tensors = {k: v for k, v in stats.items() if isinstance(v, torch.Tensor)}
        values = torch.stack([v.detach().float().reshape(()) for v in tensors.values()]).tolist() if tensors else []
        floats = dict(zip(tensors.keys(), values))
        return {k: floats[k] if k in floats else float(v) for k, v in stats.items()}
