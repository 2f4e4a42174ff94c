"""`policy.export`: the exported TorchScript and ONNX actors run in a fresh interpreter where
ding cannot be imported (TorchScript with torch alone, ONNX with onnxruntime and numpy and no
torch) and match `eval_mode` within 1e-5 on 1,000 observations, for discrete and continuous
policies."""
import copy
import importlib
import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from ding.policy.export import ExportError, export_policy
from ding.utils.registry import POLICY_REGISTRY

N_OBS = 1000
# name -> (dizoo config module, policy type, outputs to export)
POLICIES = {
    'dqn': ('dizoo.classic_control.cartpole.config.cartpole_dqn_config', 'dqn', ('action', 'logit')),
    'ppo_discrete': ('dizoo.classic_control.cartpole.config.cartpole_ppo_config', 'ppo', ('action', )),
    'ppo_continuous': ('dizoo.classic_control.pendulum.config.pendulum_ppo_config', 'ppo', ('action', )),
    'sac': ('dizoo.classic_control.pendulum.config.pendulum_sac_config', 'sac', ('action', )),
    'td3': ('dizoo.classic_control.pendulum.config.pendulum_td3_config', 'td3', ('action', )),
}

# Runs in `python -I`: no cwd, no PYTHONPATH, no user site; the editable install's finder and any
# path entry holding a `ding` package are removed too, so that `import ding` fails as if it were not installed.
NO_DING = '''
import os
import sys
sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, '__module__', '').startswith('__editable__')]
sys.path[:] = [p for p in sys.path if p and not os.path.isdir(os.path.join(p, 'ding'))]
try:
    import ding
except ImportError:
    pass
else:
    raise SystemExit('ding is importable: ' + ding.__file__)
import json
jobs = json.loads(sys.argv[1])
'''
RUN_TORCHSCRIPT = NO_DING + '''
import torch
for model_path, obs_path, out_prefix, outputs in jobs:
    obs = torch.from_numpy(__import__('numpy').load(obs_path))
    out = torch.jit.load(model_path)(obs)
    out = out if isinstance(out, tuple) else (out, )
    for name, value in zip(outputs, out):
        __import__('numpy').save(out_prefix + name + '.npy', value.numpy())
print('modules:', sorted(m for m in sys.modules if m.split('.')[0] in ('ding', 'dizoo', 'onnxruntime')))
'''
RUN_ONNX = NO_DING + '''
import numpy as np
import onnxruntime
for model_path, obs_path, out_prefix, outputs in jobs:
    session = onnxruntime.InferenceSession(model_path, providers=['CPUExecutionProvider'])
    assert [i.name for i in session.get_inputs()] == ['obs']
    for name, value in zip(outputs, session.run(list(outputs), {'obs': np.load(obs_path)})):
        np.save(out_prefix + name + '.npy', value)
print('modules:', sorted(m for m in sys.modules if m.split('.')[0] in ('ding', 'dizoo', 'torch')))
'''


def build_policy(name):
    module, policy_type, _ = POLICIES[name]
    cfg = copy.deepcopy(importlib.import_module(module).main_config.policy)
    cfg.type = policy_type
    torch.manual_seed(0)
    policy = POLICY_REGISTRY.lookup(policy_type)(cfg, enable_field=['eval'])
    with torch.no_grad():  # weights far from the init, so greedy actions vary across observations
        for param in policy._model.parameters():
            param.add_(0.1 * torch.randn_like(param))
    policy.publish_weights()
    return policy


def run_without_ding(script, jobs):
    proc = subprocess.run([sys.executable, '-I', '-c', script, json.dumps(jobs)], capture_output=True, text=True,
                          timeout=120, cwd='/')
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize('fmt, script', [('torchscript', RUN_TORCHSCRIPT), ('onnx', RUN_ONNX)],
                         ids=['torchscript', 'onnx'])
def test_exported_actors_match_eval_mode_without_ding(tmp_path, fmt, script):
    rng = np.random.default_rng(0)
    expected, jobs = {}, []
    for name, (_, _, outputs) in POLICIES.items():
        policy = build_policy(name)
        obs_dim = int(policy.cfg.model.obs_shape)
        obs = (2.0 * rng.standard_normal((N_OBS, obs_dim))).astype(np.float32)
        np.save(tmp_path / f'{name}_obs.npy', obs)
        reference = policy.eval_mode.forward_batch(obs)
        expected[name] = {k: reference[k] for k in outputs}
        model_path = str(tmp_path / f'{name}.{fmt}')
        meta = policy.export(model_path, fmt, outputs=outputs)
        assert meta['outputs'] == list(outputs) and meta['obs_shape'] == [obs_dim]
        jobs.append([model_path, str(tmp_path / f'{name}_obs.npy'), str(tmp_path / f'{name}_out_'), list(outputs)])

    # no ding module was imported there (nor torch, for ONNX)
    assert run_without_ding(script, jobs).strip() == 'modules: []'

    for name, outputs in expected.items():
        for key, want in outputs.items():
            got = np.load(tmp_path / f'{name}_out_{key}.npy')
            assert got.shape == want.shape and got.dtype == want.dtype, (name, key)
            assert np.abs(got.astype(np.float64) - want).max() < 1e-5, (name, key)
    # discrete actions are indices, continuous ones stay inside the policies' [-1, 1] bounds
    for name in ('dqn', 'ppo_discrete'):
        assert expected[name]['action'].dtype == np.int64 and set(np.unique(expected[name]['action'])) == {0, 1}
    for name in ('ppo_continuous', 'sac', 'td3'):
        action = expected[name]['action']
        assert action.shape == (N_OBS, 1) and np.abs(action).max() <= 1.0 and action.std() > 0.05, name


def test_onnx_export_is_byte_for_byte_repeatable(tmp_path):
    policy = build_policy('dqn')
    policy.export(str(tmp_path / 'a.onnx'), 'onnx')
    policy.export(str(tmp_path / 'b.onnx'), 'onnx')
    assert (tmp_path / 'a.onnx').read_bytes() == (tmp_path / 'b.onnx').read_bytes()


def test_export_follows_the_loaded_weights(tmp_path):
    """The actor written is the eval copy after the newest weights, not a stale acting copy."""
    policy = build_policy('ppo_discrete')
    obs = np.random.default_rng(1).standard_normal((64, 4)).astype(np.float32)
    before = policy.eval_mode.forward_batch(obs)['action']
    weights = {k: v.clone() for k, v in policy._model.state_dict().items()}
    last = [k for k in weights if k.startswith('actor') and k.endswith('bias')][-1]
    weights[last] = torch.tensor([10.0, -10.0])  # now always action 0
    policy.learn_mode.load_state_dict({'model': weights})
    policy.export(str(tmp_path / 'p.pt'), 'torchscript')
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        actions = torch.jit.load(str(tmp_path / 'p.pt'))(torch.from_numpy(obs)).numpy()
    assert before.any() and not actions.any()


@pytest.mark.parametrize('kwargs, message', [
    (dict(format='tflite'), "unknown export format 'tflite'; valid choices: torchscript, onnx"),
    (dict(outputs=('action', 'logit')), "PPOPolicy's eval forward has no output ['logit']; it yields: action"),
    (dict(obs_shape=(4, 2)), 'does not run on a float32 batch of shape (7, 4, 2)'),
])
def test_bad_export_requests_name_the_cause(tmp_path, kwargs, message):
    target = tmp_path / 'actor.pt'
    with pytest.raises(ExportError) as err:
        export_policy(build_policy('ppo_discrete'), str(target), **kwargs)
    assert message in str(err.value)
    assert not target.exists()


def test_a_policy_with_state_between_eval_forwards_is_refused(tmp_path):
    """A recurrent policy resets its hidden state per episode; a stateless trace would freeze it."""
    from ding.policy.dqn import DQNPolicy

    class StatefulDQN(DQNPolicy):
        def _reset_eval(self, env_ids=None):
            pass

    module, _, _ = POLICIES['dqn']
    cfg = copy.deepcopy(importlib.import_module(module).main_config.policy)
    with pytest.raises(ExportError, match='keeps state between eval forwards'):
        StatefulDQN(cfg, enable_field=['eval']).export(str(tmp_path / 'a.pt'))
    assert not (tmp_path / 'a.pt').exists()
