"""Export of a recurrent policy (R2D2's DRQN: the hidden state is an input and the next state an
output) and of the observation normalisation a run carries (the file takes raw observations).
Both files run in a fresh interpreter without ding and match eval_mode within 1e-5 over 1,000
observations."""
import copy
import importlib
import warnings

import numpy as np
import pytest
import torch

from ding.envs.env_wrappers.running_stats import RunningMeanStd
from ding.policy.export import ExportError
from ding.utils.registry import POLICY_REGISTRY
from tests.export.test_export_parity import NO_DING, build_policy, run_without_ding

ENVS, STEPS = 10, 100  # 1,000 observations: 10 envs acting for 100 steps, each keeping its own state

# Carries the state from step to step, starting at zeros, as a deployment loop does.
RUN_RECURRENT = NO_DING + '''
import numpy as np
model_path, fmt, obs_path, out_path = jobs
obs = np.load(obs_path)  # [T, B, obs_dim]
state = None
logits = []
if fmt == 'onnx':
    import onnxruntime
    session = onnxruntime.InferenceSession(model_path, providers=['CPUExecutionProvider'])
    shape = [d for d in session.get_inputs()[1].shape[1:]]
    state = np.zeros((obs.shape[1], *shape), np.float32)
    for t in range(obs.shape[0]):
        _, logit, state = session.run(['action', 'logit', 'next_state'], {'obs': obs[t], 'state': state})
        logits.append(logit)
else:
    import json, torch
    extra = {'ding_export.json': ''}
    module = torch.jit.load(model_path, _extra_files=extra)
    state = torch.zeros((obs.shape[1], *json.loads(extra['ding_export.json'])['state_shape']))
    for t in range(obs.shape[0]):
        _, logit, state = module(torch.from_numpy(obs[t]), state)
        logits.append(logit.numpy())
np.save(out_path, np.stack(logits))
'''


def r2d2_policy():
    module = importlib.import_module('dizoo.classic_control.cartpole.config.cartpole_r2d2_config')
    cfg = copy.deepcopy(module.main_config.policy)
    cfg.type = 'r2d2'
    cfg.eval.env_num = ENVS  # one hidden-state row per env of the test
    torch.manual_seed(0)
    policy = POLICY_REGISTRY.lookup('r2d2')(cfg, enable_field=['eval'])
    with torch.no_grad():
        for param in policy._model.parameters():
            param.add_(0.1 * torch.randn_like(param))
    policy.publish_weights()
    return policy


@pytest.mark.slow
@pytest.mark.parametrize('fmt', ['torchscript', 'onnx'])
def test_recurrent_export_carries_the_hidden_state(tmp_path, fmt):
    policy = r2d2_policy()
    obs = np.random.default_rng(0).standard_normal((STEPS, ENVS, 4)).astype(np.float32)
    want = np.stack([policy.eval_mode.forward_batch(obs[t])['logit'] for t in range(STEPS)])
    path = str(tmp_path / f'r2d2.{fmt}')
    meta = policy.export(path, fmt, outputs=('action', 'logit'))
    assert meta['inputs'] == ['obs', 'state'] and meta['outputs'] == ['action', 'logit', 'next_state']
    assert meta['state_shape'] == [2, policy._model.hidden_size]
    np.save(tmp_path / 'obs.npy', obs)
    run_without_ding(RUN_RECURRENT, [path, fmt, str(tmp_path / 'obs.npy'), str(tmp_path / 'out.npy')])
    got = np.load(tmp_path / 'out.npy')
    assert got.shape == want.shape
    assert np.abs(got.astype(np.float64) - want).max() < 1e-5
    # the state matters: replaying the last step from a zero state gives other Q-values
    assert np.abs(want[-1] - policy_from_zero(policy, obs[-1])).max() > 1e-3


def policy_from_zero(policy, obs):
    policy.eval_mode.reset()
    return policy.eval_mode.forward_batch(obs)['logit']


def running_stats(rng):
    stats = RunningMeanStd(shape=(4, ))
    stats.update(rng.normal([1.0, -2.0, 0.5, 3.0], [2.0, 0.5, 1.0, 4.0], (500, 4)))
    return stats


@pytest.mark.parametrize('fmt', ['torchscript', 'onnx'])
def test_normalized_export_takes_raw_observations(tmp_path, fmt):
    rng = np.random.default_rng(1)
    stats = running_stats(rng)
    policy = build_policy('dqn')
    raw = rng.normal([1.0, -2.0, 0.5, 3.0], [4.0, 1.0, 2.0, 8.0], (1000, 4)).astype(np.float32)
    # what the pipeline's eval_mode sees: the manager's float64 normalisation (clipped to [-10, 10])
    want = policy.eval_mode.forward_batch(stats.normalize(raw, (-10, 10)).astype(np.float32))['logit']
    path = str(tmp_path / f'dqn.{fmt}')
    meta = policy.export(path, fmt, outputs=('logit', ), obs_module=stats.as_module((-10, 10)))
    assert meta['obs_normalization'] is True
    got = run_file(path, fmt, raw)
    assert np.abs(got.astype(np.float64) - want).max() < 1e-5
    assert np.abs(run_file(str(export_plain(policy, tmp_path, fmt)), fmt, raw) - want).max() > 1e-2


def run_file(path, fmt, obs):
    if fmt == 'onnx':
        import onnxruntime
        return onnxruntime.InferenceSession(path, providers=['CPUExecutionProvider']).run(['logit'], {'obs': obs})[0]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return torch.jit.load(path)(torch.from_numpy(obs)).numpy()


def export_plain(policy, tmp_path, fmt):
    path = tmp_path / f'plain.{fmt}'
    policy.export(str(path), fmt, outputs=('logit', ))
    return path


def test_recurrent_policy_without_a_state_table_is_refused(tmp_path):
    policy = r2d2_policy()
    policy._eval_states = {}  # state kept some other way: a trace could not carry it
    with pytest.raises(ExportError, match='outside a HiddenStateTable'):
        policy.export(str(tmp_path / 'a.pt'))


def test_ding_export_puts_the_checkpoints_normalizer_in_front(tiny_run, tmp_path):
    """`ding export` of a checkpoint written by CkptSaver(..., normalizer=manager): raw obs in."""
    import shutil
    from ding.entry.export import export_run
    run = tmp_path / 'run'
    shutil.copytree(tiny_run, run)
    stats = running_stats(np.random.default_rng(2))
    ckpt = run / 'ckpt' / 'final.pth.tar'
    state = torch.load(ckpt, weights_only=False)
    state['env_normalizer'] = {'obs': stats.state_dict(), 'reward': None, 'clip_range': (-10, 10),
                               'returns': np.zeros(1)}
    torch.save(state, ckpt)
    raw = np.random.default_rng(3).normal(0.0, 5.0, (200, 4)).astype(np.float32)
    meta = export_run(str(run), 'onnx', ckpt='final', output=str(tmp_path / 'n.onnx'), outputs=('logit', ))
    plain = export_run(str(tiny_run), 'onnx', ckpt='final', output=str(tmp_path / 'p.onnx'), outputs=('logit', ))
    assert meta['obs_normalization'] and not plain['obs_normalization']
    normalised = stats.normalize(raw, (-10, 10)).astype(np.float32)
    assert np.abs(run_file(str(tmp_path / 'n.onnx'), 'onnx', raw) -
                  run_file(str(tmp_path / 'p.onnx'), 'onnx', normalised)).max() < 1e-5
