"""Export a policy's greedy actor as a self-contained TorchScript or ONNX file.

The exported graph is the policy's own eval forward (`_forward_eval`, what `eval_mode` runs)
traced on its acting copy of the model: whatever the model does to the observation and the
deterministic action choice (argmax of Q-values or logits, the Gaussian's mean, SAC's tanh,
PPO's action clipping) are recorded as tensor ops, so the file needs neither ding nor Python
classes to run:

    input   obs      float32 [B, *obs_shape]
    output  action   [B] int64 (discrete) or [B, action_dim] float32 (continuous)
            logit    [B, n_actions] float32, when asked for and the eval forward yields it (DQN)

TorchScript (`torch.jit.load(path)(obs)`) returns the action tensor, or a tuple in the order of
`outputs` when more than one is asked for. ONNX names its input `obs` and its outputs as asked.

ONNX goes through torch's TorchScript-based exporter (`dynamo=False`): it needs no `onnxscript`,
runs offline and writes the same bytes for the same weights. Each export is checked before it is
written: the file's outputs on a fresh batch (of another size than the traced one, so a batch
size baked into the trace is caught) must match the eval forward (`PARITY_ATOL`, `PARITY_RTOL`).
IQN samples quantile fractions on every forward, in eval too, and so does its exported graph.
Policies that keep state between eval forwards (recurrent ones: R2D2) are refused for now; their
export would take the hidden state as an input and return the next one.
"""
import io
import json
import warnings
from typing import Any, Dict, Sequence, Tuple

import numpy as np
import torch

from ding.utils.fileio import atomic_write_bytes

EXPORT_FORMATS = ('torchscript', 'onnx')
FILE_SUFFIX = {'torchscript': '.pt', 'onnx': '.onnx'}
# The check before writing: |exported - eval forward| <= ATOL + RTOL * |eval forward| element-wise.
# float32 kernels that sum in another order (onnxruntime's GEMM, torch's) differ by rounding alone,
# which grows with the magnitude (about 1e-5 on Q-values near 60); a wrong graph differs by far more.
PARITY_ATOL, PARITY_RTOL = 1e-5, 1e-4
ONNX_OPSET = 17
METADATA_NAME = 'ding_export.json'  # TorchScript extra file / ONNX metadata key describing the file
_TRACE_BATCH, _CHECK_BATCH = 7, 5  # distinct sizes: a batch dimension frozen into the graph shows up


class ExportError(Exception):
    """The policy cannot be exported as asked (unsupported policy, unknown output, parity failed)."""


class GreedyActor(torch.nn.Module):
    """obs batch -> the chosen eval-forward outputs, as a module torch can trace. The acting
    model is a submodule so the tracer records its weights as parameters, not constants."""

    def __init__(self, policy: Any, model: torch.nn.Module, outputs: Sequence[str]) -> None:
        super().__init__()
        self.model = model
        self._eval_forward = policy._forward_eval
        self._outputs = tuple(outputs)

    def forward(self, obs: torch.Tensor) -> Any:
        out = self._eval_forward(obs)
        values = tuple(out[k] for k in self._outputs)
        return values[0] if len(values) == 1 else values


def export_policy(policy: Any, path: str, format: str = 'torchscript', outputs: Sequence[str] = ('action', ),
                  obs_shape: Any = None) -> Dict[str, Any]:
    """Write `policy`'s greedy actor to `path` (atomically) in `format`; returns the metadata
    stored in the file (outputs, obs shape, policy class, max parity error of the check)."""
    if format not in EXPORT_FORMATS:
        raise ExportError(f'unknown export format {format!r}; valid choices: {", ".join(EXPORT_FORMATS)}')
    if getattr(policy, '_di_engine_protocol', False):
        raise ExportError(f'{type(policy).__name__} is written against DI-engine\'s policy protocol; '
                          f'only ding\'s own policies can be exported')
    if _has_episode_state(policy):
        raise ExportError(f'{type(policy).__name__} keeps state between eval forwards (a recurrent hidden state); '
                          f'exporting it with the state as input and output is not supported yet')
    if policy._device.type != 'cpu':
        raise ExportError(f'{type(policy).__name__} runs on {policy._device}; export a CPU policy '
                          f'(cfg.policy.cuda=False) so the file runs anywhere')
    if format == 'onnx':
        import onnx  # noqa: F401  (the `export` extra; imported first so a missing one is named early)
        import onnxruntime  # noqa: F401
    outputs = tuple(outputs)
    shape = _obs_shape(policy, obs_shape)
    generator = torch.Generator().manual_seed(0)
    trace_obs = torch.randn((_TRACE_BATCH, ) + shape, generator=generator)
    check_obs = torch.randn((_CHECK_BATCH, ) + shape, generator=generator)
    with policy.hold_acting_weights('eval') as model, torch.no_grad():
        available = _eval_outputs(policy, trace_obs)
        unknown = [k for k in outputs if k not in available]
        if not outputs or unknown:
            raise ExportError(f'{type(policy).__name__}\'s eval forward has no output {unknown or "at all"}; '
                              f'it yields: {", ".join(available)}')
        actor = GreedyActor(policy, model, outputs).eval()
        expected = {k: v.numpy() for k, v in policy._forward_eval(check_obs).items() if k in outputs}
        meta = {
            'format': format, 'policy': type(policy).__name__, 'input': 'obs', 'obs_shape': list(shape),
            'obs_dtype': 'float32', 'outputs': list(outputs),
            'output_dtypes': {k: str(expected[k].dtype) for k in outputs}, 'torch': torch.__version__,
        }
        with warnings.catch_warnings():
            # torch marks TorchScript deprecated and the tracer warns about constants such as an
            # action bound; the parity check below is what vouches for the trace.
            warnings.simplefilter('ignore', DeprecationWarning)
            warnings.simplefilter('ignore', torch.jit.TracerWarning)
            data = _torchscript_bytes(actor, trace_obs, meta) if format == 'torchscript' else \
                _onnx_bytes(actor, trace_obs, outputs, meta)
    got = run_torchscript(data, check_obs, outputs) if format == 'torchscript' else run_onnx(data, check_obs, outputs)
    bad = [k for k in outputs if not _within_tolerance(got[k], expected[k])]
    if bad:
        raise ExportError(f'the exported {format} actor of {type(policy).__name__} differs from its eval forward '
                          f'in {bad} (max |diff| {max(_max_abs_diff(got[k], expected[k]) for k in bad):.3g}); '
                          f'nothing was written')
    error = max(_max_abs_diff(got[k], expected[k]) for k in outputs)
    atomic_write_bytes(path, data)
    return dict(meta, parity_max_abs_diff=error)


def _has_episode_state(policy: Any) -> bool:
    """Whether eval acting keeps state across forwards (it resets it per episode): a traced,
    stateless graph would freeze that state in, so such a policy is refused."""
    from ding.policy.base_policy import Policy
    return type(policy)._reset_eval is not Policy._reset_eval


def _obs_shape(policy: Any, obs_shape: Any) -> Tuple[int, ...]:
    shape = obs_shape if obs_shape is not None else policy.cfg.get('model', {}).get('obs_shape')
    if shape is None:
        raise ExportError(f'{type(policy).__name__} has no cfg.model.obs_shape; pass obs_shape=...')
    return (int(shape), ) if np.isscalar(shape) else tuple(int(d) for d in shape)


def _eval_outputs(policy: Any, obs: torch.Tensor) -> Tuple[str, ...]:
    """The batch-shaped tensors the eval forward returns (what can be exported)."""
    try:
        out = policy._forward_eval(obs)
    except (RuntimeError, TypeError, ValueError, KeyError, IndexError, AssertionError) as err:
        raise ExportError(f'{type(policy).__name__}\'s eval forward does not run on a float32 batch of shape '
                          f'{tuple(obs.shape)} ({type(err).__name__}: {err}); recurrent or dict observations '
                          f'are not supported') from err
    return tuple(k for k, v in out.items() if isinstance(v, torch.Tensor) and v.dim() >= 1
                 and v.shape[0] == obs.shape[0])


def _torchscript_bytes(actor: GreedyActor, obs: torch.Tensor, meta: Dict[str, Any]) -> bytes:
    # freeze inlines the weights the graph uses and drops the rest (e.g. the critic)
    module = torch.jit.freeze(torch.jit.trace(actor, obs, check_trace=False))
    buffer = io.BytesIO()
    torch.jit.save(module, buffer, _extra_files={METADATA_NAME: json.dumps(meta, sort_keys=True)})
    return buffer.getvalue()


def _onnx_bytes(actor: GreedyActor, obs: torch.Tensor, outputs: Sequence[str], meta: Dict[str, Any]) -> bytes:
    import onnx
    buffer = io.BytesIO()
    axes = {name: {0: 'batch'} for name in ('obs', ) + tuple(outputs)}
    torch.onnx.export(actor, (obs, ), buffer, dynamo=False, input_names=['obs'], output_names=list(outputs),
                      dynamic_axes=axes, opset_version=ONNX_OPSET, do_constant_folding=True)
    model = onnx.load_from_string(buffer.getvalue())
    model.producer_name = 'ding'
    entry = model.metadata_props.add()
    entry.key, entry.value = METADATA_NAME, json.dumps(meta, sort_keys=True)
    onnx.checker.check_model(model)
    return model.SerializeToString()


def run_torchscript(data: bytes, obs: torch.Tensor, outputs: Sequence[str]) -> Dict[str, np.ndarray]:
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)  # torch.jit.load: see the module docstring
        module = torch.jit.load(io.BytesIO(data))
    with torch.no_grad():
        out = module(obs)
    values = out if isinstance(out, tuple) else (out, )
    return {k: v.numpy() for k, v in zip(outputs, values)}


def run_onnx(data: bytes, obs: torch.Tensor, outputs: Sequence[str]) -> Dict[str, np.ndarray]:
    import onnxruntime
    session = onnxruntime.InferenceSession(data, providers=['CPUExecutionProvider'])
    return dict(zip(outputs, session.run(list(outputs), {'obs': obs.numpy()})))


def _within_tolerance(got: np.ndarray, expected: np.ndarray) -> bool:
    if got.shape != expected.shape:
        return False
    exp = expected.astype(np.float64)
    return bool((np.abs(got.astype(np.float64) - exp) <= PARITY_ATOL + PARITY_RTOL * np.abs(exp)).all())


def _max_abs_diff(got: np.ndarray, expected: np.ndarray) -> float:
    if got.shape != expected.shape:
        return float('inf')
    return float(np.abs(got.astype(np.float64) - expected.astype(np.float64)).max(initial=0.0))
