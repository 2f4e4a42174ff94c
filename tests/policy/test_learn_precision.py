"""`policy.learn.precision='bf16'` (ding/torch_utils/precision.py): the update's matmuls run in
bfloat16, what the model hands the policy is float32, the weights and optimizer state stay float32,
acting is untouched, and the update moves the weights the way the float32 one does."""
import numpy as np
import pytest
import torch

from ding.data.batch import Batch
from ding.entry.cli import main
from ding.model import DQN
from ding.policy import DQNPolicy, SACPolicy


def _dqn(precision, seed=0):
    torch.manual_seed(seed)
    cfg = dict(model=dict(obs_shape=4, action_shape=2), learn=dict(batch_size=16, precision=precision))
    return DQNPolicy(cfg, model=DQN(obs_shape=4, action_shape=2))


def _batch(seed=1):
    g = torch.Generator().manual_seed(seed)
    return Batch(obs=torch.randn(16, 4, generator=g), action=torch.randint(0, 2, (16, ), generator=g),
                 reward=torch.randn(16, generator=g), next_obs=torch.randn(16, 4, generator=g), done=torch.zeros(16))


def _dtypes_seen(policy, step):
    """The output dtypes of the model's first linear layer and of the whole model during `step`."""
    first_linear = next(m for m in policy._model.modules() if isinstance(m, torch.nn.Linear))
    seen = {'linear': set(), 'model': set()}
    hooks = [first_linear.register_forward_hook(lambda m, i, o: seen['linear'].add(o.dtype)),
             policy._model.register_forward_hook(lambda m, i, o: seen['model'].add(o['logit'].dtype))]
    try:
        step()
    finally:
        for h in hooks:
            h.remove()
    return seen


def test_bf16_update_runs_matmuls_in_bf16_and_hands_the_policy_float32():
    policy = _dqn('bf16')
    seen = _dtypes_seen(policy, lambda: policy.learn_mode.forward(_batch()))
    assert seen == {'linear': {torch.bfloat16}, 'model': {torch.float32}}
    assert all(p.dtype == torch.float32 for p in policy._model.parameters())
    assert all(p.grad.dtype == torch.float32 for p in policy._model.parameters())
    adam_state = [t for s in policy._optimizer.state.values() for t in s.values() if t.dim() > 0]
    assert adam_state and all(t.dtype == torch.float32 for t in adam_state)
    assert all(p.dtype == torch.float32 for p in policy._target_model.parameters())


def test_fp32_is_the_default_and_acting_is_never_autocast():
    default = DQNPolicy(dict(model=dict(obs_shape=4, action_shape=2)), model=DQN(obs_shape=4, action_shape=2))
    assert default.cfg.learn.precision == 'fp32'
    seen = _dtypes_seen(default, lambda: default.learn_mode.forward(_batch()))
    assert seen['linear'] == {torch.float32}
    policy = _dqn('bf16')
    obs = np.zeros((3, 4), np.float32)
    policy.learn_mode.forward(_batch())
    out = policy.collect_mode.forward_batch(obs, eps=0.0)
    assert out['logit'].dtype == np.float32
    acting = policy.acting_model('eval')
    first_linear = next(m for m in acting.modules() if isinstance(m, torch.nn.Linear))
    dtypes = []
    hook = first_linear.register_forward_hook(lambda m, i, o: dtypes.append(o.dtype))
    policy.eval_mode.forward_batch(obs)
    hook.remove()
    assert dtypes and set(dtypes) <= {torch.float32}


def test_bf16_gradients_point_where_the_float32_ones_do():
    grads = {}
    for precision in ('fp32', 'bf16'):
        policy = _dqn(precision)
        out = policy.learn_mode.forward(_batch())
        grads[precision] = (torch.cat([p.grad.flatten() for p in policy._model.parameters()]), out['total_loss'])
    cos = torch.nn.functional.cosine_similarity(grads['fp32'][0], grads['bf16'][0], dim=0).item()
    assert cos > 0.99, cos
    assert grads['bf16'][1] == pytest.approx(grads['fp32'][1], rel=0.02)


def test_a_sac_update_under_bf16_moves_the_weights_and_reports_finite_floats():
    cfg = dict(model=dict(obs_shape=3, action_shape=1), learn=dict(batch_size=16, precision='bf16'))
    policy = SACPolicy(cfg)
    g = torch.Generator().manual_seed(0)
    batch = Batch(obs=torch.randn(16, 3, generator=g), action=torch.rand(16, 1, generator=g) * 2 - 1,
                  reward=torch.randn(16, generator=g), next_obs=torch.randn(16, 3, generator=g), done=torch.zeros(16))
    before = [p.detach().clone() for p in policy._model.parameters()]
    stats = policy.learn_mode.forward(batch)
    assert all(isinstance(v, float) and np.isfinite(v) for v in stats.values() if not isinstance(v, np.ndarray))
    assert all(p.dtype == torch.float32 for p in policy._model.parameters())
    assert any(not torch.equal(b, p) for b, p in zip(before, policy._model.parameters()))


def test_an_unknown_precision_is_one_error_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = ['train', '--algo', 'dqn', '--env', 'CartPole-v0', '--config', '{"policy": {"learn": {"precision": "fp16"}}}',
            '--max-env-step', '200', '--no-progress']
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "policy.learn.precision must be one of 'fp32', 'bf16', got 'fp16'" in err[0], err
