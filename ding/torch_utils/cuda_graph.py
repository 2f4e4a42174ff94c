"""Replay a whole learner update as one CUDA graph (`learn.cuda_graph=True`).

Small networks on a GPU are bound by kernel launches, not arithmetic: an EDAC update (ten critics,
a double backward for its diversity penalty, one fused Adam step, a polyak update) launches
hundreds of kernels of a few microseconds each, and the Python that launches them is slower than
the GPU that runs them. Captured once and replayed, the update costs one launch.

The captured function must be pure tensor work on fixed shapes: no `.item()` or other host sync,
no Python branch on tensor values, and an optimizer made with `capturable=True`. A float learning
rate is baked into the graph; `learn.lr_scheduler` makes each group's lr a tensor it updates in
place (ding/torch_utils/lr_schedule.py), which every replay reads. The function's outputs are
the graph's own buffers, overwritten by the next replay: read them before calling again.
"""
from typing import Callable, Dict, Optional, Tuple

import torch

Tensors = Dict[str, Optional[torch.Tensor]]


def _signature(inputs: Tensors) -> Tuple:
    return tuple((k, None if v is None else (tuple(v.shape), v.dtype, v.device)) for k, v in sorted(inputs.items()))


def _detached(outputs: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    # An output that keeps its autograd graph keeps the parameters' gradient-accumulator nodes, and
    # with them the stream they were made on: a later update on another stream would then sync with it.
    return {k: v.detach() for k, v in outputs.items()}


class _Captured:
    """One capture: its graph and the static tensors it reads and writes."""

    def __init__(self, update: Callable[[Tensors], Dict[str, torch.Tensor]], inputs: Tensors) -> None:
        for value in inputs.values():
            if value is not None and value.device.type != 'cuda':
                raise ValueError(f'GraphedUpdate: inputs must be on the GPU; got one on {value.device}')
        self.inputs = {k: None if v is None else v.detach().clone() for k, v in inputs.items()}
        torch.cuda.synchronize()
        self.graph = torch.cuda.CUDAGraph()
        # thread_local: other threads (an async pipeline's collector) may use the GPU meanwhile
        try:
            with torch.cuda.graph(self.graph, capture_error_mode='thread_local'):
                self.outputs = _detached(update(self.inputs))
        except RuntimeError as err:  # torch's AcceleratorError is one
            raise RuntimeError(f'learn.cuda_graph: capturing {getattr(update, "__qualname__", update)} failed; an '
                               f'update that syncs with the host (.item(), .cpu(), a branch on a tensor) cannot be '
                               f'captured. A failed capture can leave CUDA unusable in this process. Cause: {err}'
                               ) from err

    def replay(self, inputs: Tensors) -> Dict[str, torch.Tensor]:
        for key, value in inputs.items():
            if value is not None:
                self.inputs[key].copy_(value, non_blocking=True)
        self.graph.replay()
        return self.outputs


class GraphedUpdate:
    """`update(inputs) -> outputs` (dicts of tensors), run eagerly for `warmup` calls on a side
    stream (lazy allocations, optimizer state and library handles must exist before capture), then
    captured on the next call and replayed from then on. Every call performs exactly one update:
    the capturing call replays the graph once after capturing it.

    Each input signature (shapes, dtypes, which inputs are None) gets its own capture, up to
    `max_shapes`: an epoch's shorter last minibatch is warmed up and captured like the full one."""

    def __init__(self, update: Callable[[Tensors], Dict[str, torch.Tensor]], warmup: int = 3,
                 max_shapes: int = 4) -> None:
        if not torch.cuda.is_available():
            raise RuntimeError('GraphedUpdate needs a CUDA device; torch finds none')
        self._update = update
        self._warmup = warmup
        self._max_shapes = max_shapes
        self._captured: Dict[Tuple, _Captured] = {}
        self._warm_calls: Dict[Tuple, int] = {}

    @property
    def captured(self) -> int:
        """How many input signatures have a captured graph."""
        return len(self._captured)

    def __call__(self, inputs: Tensors) -> Dict[str, torch.Tensor]:
        signature = _signature(inputs)
        captured = self._captured.get(signature)
        if captured is not None:
            return captured.replay(inputs)
        if signature not in self._warm_calls and len(self._warm_calls) >= self._max_shapes:
            raise ValueError(f'GraphedUpdate: more than {self._max_shapes} input shapes; a captured update needs '
                             f'a fixed batch size. Seen {list(self._warm_calls)}, now {signature}')
        done = self._warm_calls.get(signature, 0)
        self._warm_calls[signature] = done + 1
        if done < self._warmup:
            return self._on_side_stream(inputs)
        captured = self._captured[signature] = _Captured(self._update, inputs)
        return captured.replay(inputs)

    def _on_side_stream(self, inputs: Tensors) -> Dict[str, torch.Tensor]:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            out = _detached(self._update(inputs))
        torch.cuda.current_stream().wait_stream(side)
        return out
