"""The distributional DQN family's models: DI-engine's output keys and shapes, Q as the mean
of the return distribution, and noisy layers that are noisy in training mode only."""
import pytest
import torch
from torch import nn

from ding.model import FQF, IQN, QRDQN, C51DQN, NoisyLinear, RainbowDQN
from ding.utils.registry import MODEL_REGISTRY

OBS = torch.randn(5, 4)


@pytest.mark.parametrize('cls', [C51DQN, RainbowDQN])
def test_categorical_models_q_is_the_mean_under_the_support(cls):
    model = cls(4, 3, v_min=-2, v_max=2, n_atom=5).eval()
    out = model(OBS)
    assert out['logit'].shape == (5, 3) and out['distribution'].shape == (5, 3, 5)
    assert torch.allclose(out['distribution'].sum(-1), torch.ones(5, 3))
    assert model.support.tolist() == [-2, -1, 0, 1, 2]
    assert torch.allclose(out['logit'], (out['distribution'] * model.support).sum(-1))
    assert 'support' not in model.state_dict()  # follows from the constructor arguments


def test_qrdqn_quantiles_and_fixed_fractions():
    out = QRDQN(4, 2, num_quantiles=4)(OBS)
    assert out['q'].shape == (5, 2, 4) and out['tau'].shape == (5, 4, 1)
    assert out['tau'][0, :, 0].tolist() == [0.125, 0.375, 0.625, 0.875]
    assert torch.allclose(out['logit'], out['q'].mean(-1))


def test_iqn_samples_fractions_in_di_engine_layout():
    model = IQN(4, 2, num_quantiles=8, quantile_embedding_size=16)
    out = model(OBS)
    assert out['q'].shape == (8, 5, 2) and out['quantiles'].shape == (40, 1)
    assert ((out['quantiles'] >= 0) & (out['quantiles'] <= 1)).all()
    assert torch.allclose(out['logit'], out['q'].mean(0))
    assert model(OBS, num_quantiles=3)['q'].shape == (3, 5, 2)
    # row k * B + b of the fractions belongs to state b: replaying state b alone at the same
    # fractions (same random draw) gives the same values
    torch.manual_seed(3)
    both = model(OBS[:2], num_quantiles=4)
    torch.manual_seed(3)
    tau = torch.rand(8, 1).view(4, 2)
    features = model.encoder(OBS[1:2]).repeat(4, 1) * model.head.embed(torch.cos(tau[:, 1:] * model.head.frequencies))
    assert torch.allclose(both['q'][:, 1], model.head.net(features), atol=1e-6)


def test_noisy_linear_is_noisy_in_training_mode_and_its_mean_in_eval_mode():
    layer = NoisyLinear(3, 2)
    x = torch.randn(4, 3)
    assert not torch.allclose(layer(x), layer(x))  # fresh noise each forward
    layer.eval()
    assert torch.equal(layer(x), nn.functional.linear(x, layer.weight_mu, layer.bias_mu))


def test_rainbow_head_is_noisy_and_registered_names():
    model = RainbowDQN(4, 2)
    assert any(isinstance(m, NoisyLinear) for m in model.head.modules())
    model.eval()
    assert torch.equal(model(OBS)['logit'], model(OBS)['logit'])
    for name, cls in [('c51dqn', C51DQN), ('qrdqn', QRDQN), ('iqn', IQN), ('rainbowdqn', RainbowDQN)]:
        assert MODEL_REGISTRY.lookup(name) is cls


def test_fqf_proposes_ordered_fractions_and_weights_q_by_their_sizes():
    model = FQF(4, 2, num_quantiles=6, quantile_embedding_size=16)
    out = model(OBS)
    tau = out['quantiles']
    assert tau.shape == (5, 7) and out['q'].shape == (5, 6, 2) and out['q_tau_i'].shape == (5, 5, 2)
    assert torch.allclose(tau[:, 0], torch.zeros(5)) and torch.allclose(tau[:, -1], torch.ones(5))
    assert (tau.diff(dim=1) > 0).all()
    assert torch.allclose(out['quantiles_hats'], (tau[:, 1:] + tau[:, :-1]) / 2)
    assert torch.allclose(out['logit'], (tau.diff(dim=1).unsqueeze(-1) * out['q']).sum(1))
    assert out['entropies'].shape == (5, 1) and MODEL_REGISTRY.lookup('fqf') is FQF
    # the quantile values do not train the fraction network
    out['q'].sum().backward()
    assert all(p.grad is None for p in model.fraction_parameters())
