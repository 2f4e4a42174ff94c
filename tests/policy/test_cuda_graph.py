"""`learn.cuda_graph`: SAC and EDAC updates replayed as one CUDA graph. The configuration errors
are checked everywhere; the replay itself where torch finds a GPU (benchmarks/gpu_edac_graph.sh
runs this file on a lent GPU machine)."""
import logging

import pytest
import torch

from ding.policy import EDACPolicy, SACPolicy, TD3Policy
from qac_helpers import random_batch

SAC_MODEL = dict(obs_shape=3, action_shape=2, actor_head_hidden_size=16, critic_head_hidden_size=16)
EDAC_MODEL = dict(SAC_MODEL, ensemble_num=4)
needs_gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason='replaying a CUDA graph needs a GPU')


def test_cuda_graph_on_a_cpu_learner_updates_eagerly_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING):
        policy = SACPolicy(dict(model=SAC_MODEL, learn=dict(cuda_graph=True, batch_size=32)))
    assert policy._graphed_update is None
    assert 'SACPolicy learns on cpu: updates run eagerly' in caplog.text
    assert policy.learn_mode.forward(random_batch(32, obs_dim=3, act_dim=2))['critic_loss'] > 0


def test_cuda_graph_on_a_policy_without_a_graph_safe_update_is_an_error():
    with pytest.raises(ValueError, match='TD3Policy has no graph-safe update'):
        TD3Policy(dict(cuda=True, model=dict(obs_shape=3, action_shape=2), learn=dict(cuda_graph=True)))


@pytest.mark.skipif(torch.cuda.is_available(), reason='the fallback is for machines without a GPU')
def test_cuda_true_without_a_gpu_updates_eagerly_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING):
        policy = EDACPolicy(dict(cuda=True, model=EDAC_MODEL, learn=dict(cuda_graph=True, batch_size=32)))
    assert policy._graphed_update is None
    assert 'updates run eagerly' in caplog.text
    assert policy.learn_mode.forward(random_batch(32, obs_dim=3, act_dim=2))['critic_loss'] > 0


def _run(policy_cls, model, graphed: bool, steps: int = 6):
    torch.manual_seed(0)
    policy = policy_cls(dict(cuda=True, model=model, learn=dict(cuda_graph=graphed, batch_size=32)))
    outs = []
    for step in range(steps):
        torch.manual_seed(100 + step)  # the same noise for the eager and the replayed update
        outs.append(policy.learn_mode.forward(random_batch(32, obs_dim=3, act_dim=2, seed=step)))
    return policy, outs


@needs_gpu
@pytest.mark.parametrize('policy_cls, model', [(SACPolicy, SAC_MODEL), (EDACPolicy, EDAC_MODEL)])
def test_replayed_updates_match_eager_ones(policy_cls, model):
    eager, eager_outs = _run(policy_cls, model, graphed=False)
    graphed, graphed_outs = _run(policy_cls, model, graphed=True)
    assert graphed._graphed_update.captured == 1  # 3 warm-up updates, then captured on the 4th
    assert graphed._learn_iter == eager._learn_iter == 6
    for a, b in zip(eager_outs, graphed_outs):
        assert b['critic_loss'] == pytest.approx(a['critic_loss'], rel=1e-3, abs=1e-4)
        assert b['policy_loss'] == pytest.approx(a['policy_loss'], rel=1e-3, abs=1e-4)
    for p, q in zip(eager._model.parameters(), graphed._model.parameters()):
        torch.testing.assert_close(q, p, rtol=1e-3, atol=1e-4)
    for p, q in zip(eager._target_model.parameters(), graphed._target_model.parameters()):
        torch.testing.assert_close(q, p, rtol=1e-3, atol=1e-4)


@needs_gpu
def test_a_shorter_batch_gets_its_own_capture_and_a_loaded_state_is_captured_again():
    policy, _ = _run(EDACPolicy, EDAC_MODEL, graphed=True)
    for step in range(4):  # an epoch's last, shorter minibatch: warmed up, then captured too
        policy.learn_mode.forward(random_batch(16, obs_dim=3, act_dim=2, seed=20 + step))
    assert policy._graphed_update.captured == 2
    for size in (8, 4):  # four shapes in all: the most it captures
        policy.learn_mode.forward(random_batch(size, obs_dim=3, act_dim=2))
    with pytest.raises(ValueError, match='fixed batch size'):
        policy.learn_mode.forward(random_batch(2, obs_dim=3, act_dim=2))
    policy.learn_mode.load_state_dict(policy.learn_mode.state_dict())
    assert policy._graphed_update.captured == 0
    before = [p.detach().clone() for p in policy._model.parameters()]
    for step in range(5):
        policy.learn_mode.forward(random_batch(32, obs_dim=3, act_dim=2, seed=10 + step))
    assert policy._graphed_update.captured == 1
    assert any(not p.equal(b) for p, b in zip(policy._model.parameters(), before))
