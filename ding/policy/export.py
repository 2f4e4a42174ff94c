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

Recurrent policies (R2D2's DRQN), whose eval mode keeps a hidden state per env in a
`HiddenStateTable` (`policy._eval_states`), export the state as an input and the next one as the
last output, so the caller carries it between steps (zeros at an episode's start):

    inputs  obs [B, *obs_shape] float32, state [B, *state_shape] float32 (DRQN: [B, 2, H], h and c)
    outputs the asked ones, then next_state [B, *state_shape]

Observation normalisation (`obs_module`, e.g. `NormalizedEnvManager.obs_module()` or the
statistics a checkpoint carries under `env_normalizer`) is put in front of the model, so the file
takes raw observations.
"""
import io
import json
import warnings
from typing import Any, Dict, Optional, Sequence, Tuple

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
INPUT_NAMES = ('obs', 'state')  # the file's inputs; `state` only for recurrent policies
_TRACE_BATCH, _CHECK_BATCH = 7, 5  # distinct sizes: a batch dimension frozen into the graph shows up


class ExportError(Exception):
    """The policy cannot be exported as asked (unsupported policy, unknown output, parity failed)."""


class GreedyActor(torch.nn.Module):
    """obs batch -> the chosen eval-forward outputs, as a module torch can trace. The acting
    model is a submodule so the tracer records its weights as parameters, not constants."""

    def __init__(self, policy: Any, model: torch.nn.Module, outputs: Sequence[str],
                 obs_module: Optional[torch.nn.Module] = None) -> None:
        super().__init__()
        self.model = model
        self.obs_module = obs_module if obs_module is not None else torch.nn.Identity()
        self._policy = policy
        self._outputs = tuple(outputs)

    def eval_outputs(self, obs: torch.Tensor) -> Dict[str, Any]:
        """Everything the eval forward returns for raw `obs`."""
        return self._policy._forward_eval(self.obs_module(obs))

    def forward(self, obs: torch.Tensor) -> Any:
        out = self.eval_outputs(obs)
        values = tuple(out[k] for k in self._outputs)
        return values[0] if len(values) == 1 else values


class _InputState:
    """Stands in for a policy's HiddenStateTable during one traced forward: every env's state is
    the `state` input, and the next state is kept to be returned (nothing stays in the policy)."""

    def __init__(self, state: torch.Tensor) -> None:
        self.state, self.next_state = state, None

    def rows(self, env_id: Any, batch_size: int) -> None:
        return None

    def get(self, rows: Any) -> torch.Tensor:
        return self.state

    def set(self, rows: Any, state: torch.Tensor) -> None:
        self.next_state = state


class RecurrentGreedyActor(GreedyActor):
    """(obs, state) -> the chosen outputs and next_state: the eval forward of a recurrent policy
    with its hidden-state table swapped for the `state` input."""

    def eval_outputs(self, obs: torch.Tensor, state: torch.Tensor) -> Dict[str, Any]:
        table, held = _InputState(state), self._policy._eval_states
        self._policy._eval_states = table
        try:
            out = self._policy._forward_eval(self.obs_module(obs))
        finally:
            self._policy._eval_states = held
        return dict(out, next_state=table.next_state)

    def forward(self, obs: torch.Tensor, state: torch.Tensor) -> Any:
        out = self.eval_outputs(obs, state)
        return tuple(out[k] for k in self._outputs) + (out['next_state'], )


def export_policy(policy: Any, path: str, format: str = 'torchscript', outputs: Sequence[str] = ('action', ),
                  obs_shape: Any = None, obs_module: Optional[torch.nn.Module] = None) -> Dict[str, Any]:
    """Write `policy`'s greedy actor to `path` (atomically) in `format`; returns the metadata
    stored in the file (outputs, obs shape, policy class, max parity error of the check).
    `obs_module` (raw obs -> what the policy sees) is exported in front of the model."""
    if format not in EXPORT_FORMATS:
        raise ExportError(f'unknown export format {format!r}; valid choices: {", ".join(EXPORT_FORMATS)}')
    if callable(getattr(policy, '_process_transition', None)):
        raise ExportError(f'{type(policy).__name__} acts on per-env dicts (it defines _process_transition); '
                          f'only policies that act on stacked batches can be exported')
    recurrent = _has_episode_state(policy)
    if recurrent and not _state_table_of(policy):
        raise ExportError(f'{type(policy).__name__} keeps state between eval forwards outside a HiddenStateTable '
                          f'(policy._eval_states); only such recurrent policies export their state')
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
    if obs_module is not None:
        obs_module = obs_module.eval()
    with policy.hold_acting_weights('eval') as model, torch.no_grad():
        state_shape = tuple(policy._eval_states._zero_state(1).shape[1:]) if recurrent else None
        trace_in = (trace_obs, ) + ((torch.randn((_TRACE_BATCH, ) + state_shape, generator=generator), )
                                    if recurrent else ())
        check_in = (check_obs, ) + ((torch.randn((_CHECK_BATCH, ) + state_shape, generator=generator), )
                                    if recurrent else ())
        actor = (RecurrentGreedyActor if recurrent else GreedyActor)(policy, model, outputs, obs_module).eval()
        available = _eval_outputs(actor, trace_in)
        unknown = [k for k in outputs if k not in available]
        if not outputs or unknown:
            raise ExportError(f'{type(policy).__name__}\'s eval forward has no output {unknown or "at all"}; '
                              f'it yields: {", ".join(available)}')
        names = outputs + (('next_state', ) if recurrent else ())
        expected = dict(zip(names, _as_numpy(actor(*check_in))))  # the eager forward the file must match
        meta = {
            'format': format, 'policy': type(policy).__name__, 'input': 'obs', 'obs_shape': list(shape),
            'obs_dtype': 'float32', 'outputs': list(names),
            'output_dtypes': {k: str(expected[k].dtype) for k in names}, 'torch': torch.__version__,
            'obs_normalization': obs_module is not None,
        }
        if recurrent:
            meta.update(inputs=['obs', 'state'], state_shape=list(state_shape))
        with warnings.catch_warnings():
            # torch marks TorchScript deprecated and the tracer warns about constants such as an
            # action bound; the parity check below is what vouches for the trace.
            warnings.simplefilter('ignore', DeprecationWarning)
            warnings.simplefilter('ignore', torch.jit.TracerWarning)
            # an LSTM's batch-size warning: its initial state is an input of the file here
            warnings.filterwarnings('ignore', message='Exporting a model to ONNX with a batch_size other than 1')
            data = _torchscript_bytes(actor, trace_in, meta) if format == 'torchscript' else \
                _onnx_bytes(actor, trace_in, names, meta)
    got = run_torchscript(data, check_in, names) if format == 'torchscript' else run_onnx(data, check_in, names)
    bad = [k for k in names if not _within_tolerance(got[k], expected[k])]
    if bad:
        raise ExportError(f'the exported {format} actor of {type(policy).__name__} differs from its eval forward '
                          f'in {bad} (max |diff| {max(_max_abs_diff(got[k], expected[k]) for k in bad):.3g}); '
                          f'nothing was written')
    error = max(_max_abs_diff(got[k], expected[k]) for k in names)
    atomic_write_bytes(path, data)
    return dict(meta, parity_max_abs_diff=error)


def _state_table_of(policy: Any) -> bool:
    from ding.policy.hidden_state import HiddenStateTable
    return isinstance(getattr(policy, '_eval_states', None), HiddenStateTable)


def _as_numpy(values: Any) -> Tuple[np.ndarray, ...]:
    return tuple(v.numpy() for v in (values if isinstance(values, tuple) else (values, )))


def _has_episode_state(policy: Any) -> bool:
    """Whether eval acting keeps state across forwards (it resets it per episode): a traced,
    stateless graph would freeze that state in, so such a policy is refused."""
    return bool(getattr(policy, 'keeps_eval_state', lambda: False)())


def _obs_shape(policy: Any, obs_shape: Any) -> Tuple[int, ...]:
    shape = obs_shape if obs_shape is not None else policy.cfg.get('model', {}).get('obs_shape')
    if shape is None:
        raise ExportError(f'{type(policy).__name__} has no cfg.model.obs_shape; pass obs_shape=...')
    return (int(shape), ) if np.isscalar(shape) else tuple(int(d) for d in shape)


def _eval_outputs(actor: GreedyActor, inputs: Tuple[torch.Tensor, ...]) -> Tuple[str, ...]:
    """The batch-shaped tensors the eval forward returns (what can be exported)."""
    policy, obs = actor._policy, inputs[0]
    try:
        out = actor.eval_outputs(*inputs)
    except (RuntimeError, TypeError, ValueError, KeyError, IndexError, AssertionError) as err:
        raise ExportError(f'{type(policy).__name__}\'s eval forward does not run on a float32 batch of shape '
                          f'{tuple(obs.shape)} ({type(err).__name__}: {err}); dict observations '
                          f'are not supported') from err
    return tuple(k for k, v in out.items() if isinstance(v, torch.Tensor) and v.dim() >= 1
                 and v.shape[0] == obs.shape[0] and k != 'next_state')


def _torchscript_bytes(actor: GreedyActor, inputs: Tuple[torch.Tensor, ...], meta: Dict[str, Any]) -> bytes:
    # freeze inlines the weights the graph uses and drops the rest (e.g. the critic)
    module = torch.jit.freeze(torch.jit.trace(actor, inputs, check_trace=False))
    buffer = io.BytesIO()
    torch.jit.save(module, buffer, _extra_files={METADATA_NAME: json.dumps(meta, sort_keys=True)})
    return buffer.getvalue()


def _onnx_bytes(actor: GreedyActor, inputs: Tuple[torch.Tensor, ...], outputs: Sequence[str],
                meta: Dict[str, Any]) -> bytes:
    import onnx
    buffer = io.BytesIO()
    input_names = INPUT_NAMES[:len(inputs)]
    axes = {name: {0: 'batch'} for name in input_names + tuple(outputs)}
    torch.onnx.export(actor, inputs, buffer, dynamo=False, input_names=list(input_names), output_names=list(outputs),
                      dynamic_axes=axes, opset_version=ONNX_OPSET, do_constant_folding=True)
    model = onnx.load_from_string(buffer.getvalue())
    model.producer_name = 'ding'
    entry = model.metadata_props.add()
    entry.key, entry.value = METADATA_NAME, json.dumps(meta, sort_keys=True)
    onnx.checker.check_model(model)
    return model.SerializeToString()


def run_torchscript(data: bytes, inputs: Tuple[torch.Tensor, ...], outputs: Sequence[str]) -> Dict[str, np.ndarray]:
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)  # torch.jit.load: see the module docstring
        module = torch.jit.load(io.BytesIO(data))
    with torch.no_grad():
        out = module(*inputs)
    return dict(zip(outputs, _as_numpy(out)))


def run_onnx(data: bytes, inputs: Tuple[torch.Tensor, ...], outputs: Sequence[str]) -> Dict[str, np.ndarray]:
    import onnxruntime
    session = onnxruntime.InferenceSession(data, providers=['CPUExecutionProvider'])
    feed = {name: x.numpy() for name, x in zip(INPUT_NAMES, inputs)}
    return dict(zip(outputs, session.run(list(outputs), feed)))


def _within_tolerance(got: np.ndarray, expected: np.ndarray) -> bool:
    if got.shape != expected.shape:
        return False
    exp = expected.astype(np.float64)
    return bool((np.abs(got.astype(np.float64) - exp) <= PARITY_ATOL + PARITY_RTOL * np.abs(exp)).all())


def _max_abs_diff(got: np.ndarray, expected: np.ndarray) -> float:
    if got.shape != expected.shape:
        return float('inf')
    return float(np.abs(got.astype(np.float64) - expected.astype(np.float64)).max(initial=0.0))
