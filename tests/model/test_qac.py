"""ContinuousQAC / DiscreteQAC: output shapes, the fused twin critic, detached-weight evaluation."""
import numpy as np
import pytest
import torch

from ding.model import ContinuousQAC, DiscreteQAC
from ding.model.qac import EnsembleMLP


def test_regression_actor_outputs_bounded_action():
    model = ContinuousQAC(obs_shape=3, action_shape=2, action_space='regression')
    out = model(torch.randn(5, 3) * 100, mode='compute_actor')
    assert out['action'].shape == (5, 2)
    assert out['action'].abs().max() <= 1


def test_reparameterization_actor_outputs_mu_and_positive_sigma():
    model = ContinuousQAC(obs_shape=(3, ), action_shape=2, action_space='reparameterization')
    mu, sigma = model(torch.randn(5, 3), mode='compute_actor')['logit']
    assert mu.shape == sigma.shape == (5, 2)
    assert (sigma > 0).all()


def test_single_and_twin_critic_output_forms():
    obs, act = torch.randn(4, 3), torch.randn(4, 1)
    single = ContinuousQAC(3, 1)({'obs': obs, 'action': act}, mode='compute_critic')['q_value']
    assert isinstance(single, torch.Tensor) and single.shape == (4, )
    twin = ContinuousQAC(3, 1, twin_critic=True).compute_critic({'obs': obs, 'action': act})['q_value']
    assert isinstance(twin, list) and len(twin) == 2 and twin[0].shape == (4, )


def test_ensemble_member_equals_its_own_mlp():
    torch.manual_seed(0)
    net = EnsembleMLP(2, 4, [8], 1)
    x = torch.randn(6, 4)
    out = net(x)
    for k in range(2):
        h = torch.relu(x @ net.weights[0][k] + net.biases[0][k])
        expected = h @ net.weights[1][k] + net.biases[1][k]
        assert torch.allclose(out[k], expected, atol=1e-6)


def test_detached_weights_send_gradient_to_action_only():
    model = ContinuousQAC(3, 1, twin_critic=True)
    action = torch.zeros(4, 1, requires_grad=True)
    model.q_all(torch.randn(4, 3), action, detach_weights=True).sum().backward()
    assert action.grad is not None and action.grad.abs().sum() > 0
    assert all(p.grad is None for p in model.critic_params())


def test_bad_action_space_and_mode_are_rejected():
    with pytest.raises(ValueError, match='action_space'):
        ContinuousQAC(3, 1, action_space='discrete')
    with pytest.raises(ValueError, match='compute_actor'):
        ContinuousQAC(3, 1)(torch.zeros(1, 3), mode='compute_value')


def test_discrete_qac_shapes():
    model = DiscreteQAC(obs_shape=4, action_shape=3, twin_critic=True)
    obs = torch.randn(5, 4)
    assert model(obs, mode='compute_actor')['logit'].shape == (5, 3)
    q1, q2 = model({'obs': obs}, mode='compute_critic')['q_value']
    assert q1.shape == q2.shape == (5, 3)
    assert model.q_all(obs).shape == (2, 5, 3)


def test_head_widths_given_as_a_list_build_those_layers():
    # the TD3 paper's and the RL Zoo's 400 x 300 networks, next to DI-engine's width x layer count
    m = ContinuousQAC(obs_shape=17, action_shape=6, twin_critic=True, actor_head_hidden_size=[400, 300],
                      critic_head_hidden_size=[400, 300])
    assert [tuple(p.shape) for p in m.actor.parameters() if p.dim() == 2] == [(400, 17), (300, 400)]
    assert tuple(m.actor_out.weight.shape) == (6, 300)
    assert [tuple(w.shape) for w in m.critic.weights] == [(2, 23, 400), (2, 400, 300), (2, 300, 1)]
    same = ContinuousQAC(obs_shape=17, action_shape=6, actor_head_hidden_size=256, actor_head_layer_num=1)
    assert [tuple(p.shape) for p in same.actor.parameters() if p.dim() == 2] == [(256, 17), (256, 256)]
    with pytest.raises(ValueError, match=r'critic_head_hidden_size must be .* a non-empty list of positive ints, got \[\]'):
        ContinuousQAC(obs_shape=17, action_shape=6, critic_head_hidden_size=[])
    # widths from a sweep's numpy array are ints too
    m = ContinuousQAC(obs_shape=3, action_shape=1, actor_head_hidden_size=np.int64(32),
                      critic_head_hidden_size=list(np.array([40, 30])))
    assert tuple(m.actor_out.weight.shape) == (1, 32) and tuple(m.critic.weights[1].shape) == (1, 40, 30)
