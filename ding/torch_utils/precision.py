"""`policy.learn.precision`: the number format a learner's matmuls and convolutions run in.

- 'fp32' (the default): everything in float32.
- 'bf16': each update runs under `torch.autocast(dtype=torch.bfloat16)`, so matmuls and
  convolutions take bfloat16 inputs and accumulate in float32, while the weights, their
  gradients, the optimizer state and the losses stay float32. On CPUs with AMX or AVX512-BF16
  (Intel Xeon since Sapphire Rapids) and on GPUs since Ampere these ops run several times
  faster; the update as a whole gains what its matmuls and convolutions weigh in it
  (benchmarks/throughput/learner_precision.py).

What the model returns is cast back to float32 (a forward hook on the learner's model and its
copies), so the policy's own math on it (log-softmax, TD targets, ratios) keeps float32's
precision. Ops inside the model run on bfloat16 activations. Acting is not autocast: a forward
on a few observations gains nothing from it.
"""
import contextlib
import functools
import logging
from typing import Any, Callable, ContextManager

import torch

from ding.torch_utils.data_helper import _map

logger = logging.getLogger('ding.policy')
PRECISIONS = ('fp32', 'bf16')
_warned_slow_bf16 = False


def learner_autocast(precision: str, device: torch.device, cuda_graph: bool = False) -> Callable[[], ContextManager]:
    """A factory of the context each update runs in, for `policy.learn.precision`. With
    `cuda_graph` (updates captured as CUDA graphs) autocast's cache of cast weights is off, as
    torch requires for capturing under autocast."""
    if precision not in PRECISIONS:
        raise ValueError(f'policy.learn.precision must be one of {list(PRECISIONS)}, got {precision!r}')
    if precision == 'fp32':
        return contextlib.nullcontext
    _warn_if_emulated(device)
    return functools.partial(torch.autocast, device.type, dtype=torch.bfloat16, cache_enabled=not cuda_graph)


def _warn_if_emulated(device: torch.device) -> None:
    """bf16 on a CPU without bfloat16 instructions is computed correctly but slower than float32:
    said once per process, as a config written for one machine may run on another."""
    global _warned_slow_bf16
    if device.type != 'cpu' or _warned_slow_bf16 or torch.ops.mkldnn._is_mkldnn_bf16_supported():
        return
    _warned_slow_bf16 = True
    logger.warning("policy.learn.precision='bf16' on a CPU without bfloat16 instructions (AMX / AVX512-BF16): "
                   "updates run slower than with 'fp32'")


def _to_float32(value: Any) -> Any:
    """`value` with each bfloat16 tensor in it (nested in dicts, lists, tuples) cast to float32."""
    return _map(value, lambda x: x.float() if isinstance(x, torch.Tensor) and x.dtype == torch.bfloat16 else x)


def _outputs_to_float32(module: torch.nn.Module, inputs: Any, output: Any) -> Any:
    return _to_float32(output) if torch.is_autocast_enabled('cpu') or torch.is_autocast_enabled('cuda') else None


def return_float32(model: torch.nn.Module) -> None:
    """Make `model` (and the deep copies later made of it: target and acting nets) hand float32
    to the policy when it ran under autocast."""
    model.register_forward_hook(_outputs_to_float32)
