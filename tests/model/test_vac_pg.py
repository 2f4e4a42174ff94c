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


@pytest.mark.parametrize('make', [
    lambda shape: VAC(shape, 6, encoder_hidden_size_list=[32, 64, 64, 512]).actor_encoder,
    lambda shape: PG(shape, 6, encoder_hidden_size_list=[32, 64, 64, 512]).encoder,
], ids=['vac', 'pg'])
def test_image_observations_get_a_conv_encoder(make):
    """[C, H, W] frames go through the Nature CNN with ReLU (not an MLP over flattened pixels,
    which is what VAC and PG built before); a grid gets 3x3 convs."""
    encoder = make([4, 84, 84])
    convs = [m for m in encoder.modules() if isinstance(m, torch.nn.Conv2d)]
    assert [(c.out_channels, c.kernel_size, c.stride) for c in convs] == [(32, (8, 8), (4, 4)), (64, (4, 4), (2, 2)),
                                                                           (64, (3, 3), (1, 1))]
    assert any(isinstance(m, torch.nn.ReLU) for m in encoder.modules())
    assert not any(isinstance(m, torch.nn.Tanh) for m in encoder.modules())
    assert encoder(torch.rand(2, 4, 84, 84)).shape == (2, 512)
    grid = make([4, 10, 10])
    assert {c.kernel_size for c in grid.modules() if isinstance(c, torch.nn.Conv2d)} == {(3, 3)}


def test_vac_on_frames_initialises_convs_orthogonally_and_keeps_tanh_for_vectors():
    model = VAC([4, 84, 84], 6, encoder_hidden_size_list=[32, 64, 64, 512])
    first = next(m for m in model.modules() if isinstance(m, torch.nn.Conv2d))
    assert torch.count_nonzero(first.bias) == 0  # orthogonal_init_ zeroes every bias, convs included
    flat = first.weight.flatten(1)
    torch.testing.assert_close(flat @ flat.T, 2 * torch.eye(32), atol=1e-4, rtol=0)  # gain sqrt(2)
    vector = VAC(4, 2, encoder_hidden_size_list=[8])
    assert any(isinstance(m, torch.nn.Tanh) for m in vector.actor_encoder.modules())


def test_vac_refuses_an_observation_shape_it_has_no_encoder_for():
    with pytest.raises(ValueError, match=r'obs_shape=\[3, 4\]'):
        VAC([3, 4], 2)


def test_a_dict_observation_of_three_keys_is_not_an_image():
    from ding.model.conv_encoders import is_image
    from ding.model.vac import default_activation
    assert is_image([4, 84, 84]) and is_image((3, 7, 7)) and is_image(torch.Size([4, 10, 10]))
    assert not is_image({'a': 3, 'b': 4, 'c': 5}) and not is_image(4) and not is_image([4])
    assert default_activation({'a': 3, 'b': 4, 'c': 5}) is torch.nn.Tanh
