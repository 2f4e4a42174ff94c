"""VAC and PG: output shapes per mode and action space, encoder sharing, errors."""
import pytest
import torch

from ding.model import PG, VAC


def test_vac_discrete_modes():
    model = VAC(4, 2, encoder_hidden_size_list=[16, 8], actor_head_hidden_size=8, critic_head_hidden_size=8)
    obs = torch.randn(5, 4)
    assert model(obs, mode='compute_actor')['logit'].shape == (5, 2)
    assert model(obs, mode='compute_critic')['value'].shape == (5, )
    both = model(obs, mode='compute_actor_critic')
    assert both['logit'].shape == (5, 2) and both['value'].shape == (5, )
    torch.testing.assert_close(both['value'], model(obs, mode='compute_critic')['value'])


def test_vac_continuous_has_state_independent_sigma():
    model = VAC(3, 2, action_space='continuous', encoder_hidden_size_list=[16], log_std_init=-0.5)
    logit = model(torch.randn(4, 3), mode='compute_actor')['logit']
    assert logit['mu'].shape == (4, 2)
    torch.testing.assert_close(logit['sigma'], torch.full((4, 2), torch.tensor(-0.5).exp().item()))


def test_vac_shared_and_separate_encoders():
    shared = VAC(4, 2, encoder_hidden_size_list=[8])
    separate = VAC(4, 2, share_encoder=False, encoder_hidden_size_list=[8])
    assert shared.actor_encoder is shared.critic_encoder
    assert separate.actor_encoder is not separate.critic_encoder
    n_encoder = 4 * 8 + 8
    assert sum(p.numel() for p in separate.parameters()) - sum(p.numel() for p in shared.parameters()) == n_encoder


def test_vac_rejects_unknown_mode_and_action_space():
    with pytest.raises(ValueError, match='compute_value'):
        VAC(4, 2)(torch.zeros(1, 4), mode='compute_value')
    with pytest.raises(ValueError, match='hybrid'):
        VAC(4, 2, action_space='hybrid')


def test_initial_discrete_policy_is_near_uniform():
    logit = VAC(4, 3)(torch.randn(64, 4), mode='compute_actor')['logit']
    assert logit.abs().max().item() < 0.1


def test_pg_model():
    assert PG(4, 3, encoder_hidden_size_list=[8])(torch.zeros(2, 4))['logit'].shape == (2, 3)
    out = PG(4, 2, action_space='continuous', encoder_hidden_size_list=[8])(torch.zeros(2, 4))['logit']
    assert out['mu'].shape == (2, 2) and out['sigma'].shape == (2, 2)
