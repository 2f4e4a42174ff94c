import pytest
import torch
from torch import nn

from ding.model import DQN, ConvEncoder, DiscreteHead, DuelingHead
from ding.utils.registry import MODEL_REGISTRY


def _set_linear(layer: nn.Linear, weight, bias) -> None:
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(weight, dtype=torch.float32))
        layer.bias.copy_(torch.tensor(bias, dtype=torch.float32))


def test_dueling_head_combines_value_and_mean_centred_advantage():
    head = DuelingHead(2, 3, layer_num=0)
    _set_linear(head.advantage[0], [[1, 0], [0, 1], [1, 1]], [0, 0, 0])
    _set_linear(head.value[0], [[2, -1]], [0.5])
    x = torch.tensor([[1.0, 2.0]])
    # A = [1, 2, 3], mean 2; V = 2 - 2 + 0.5 = 0.5 -> Q = 0.5 + [-1, 0, 1]
    assert head(x)['logit'].tolist() == [[-0.5, 0.5, 1.5]]


def test_discrete_head_layers_and_input_size():
    head = DiscreteHead(16, 4, layer_num=2, activation=nn.Tanh(), input_size=8)
    linears = [m for m in head.modules() if isinstance(m, nn.Linear)]
    assert [(l.in_features, l.out_features) for l in linears] == [(8, 16), (16, 16), (16, 4)]
    assert sum(isinstance(m, nn.Tanh) for m in head.modules()) == 2
    assert head(torch.zeros(5, 8))['logit'].shape == (5, 4)


def test_dqn_vector_obs_shapes_and_structure():
    model = DQN(4, 2)
    assert [m.out_features for m in model.encoder.modules() if isinstance(m, nn.Linear)] == [128, 128, 64]
    assert isinstance(model.head, DuelingHead)
    out = model(torch.randn(7, 4))
    assert set(out) == {'logit'} and out['logit'].shape == (7, 2)


def test_dqn_plain_head_with_wider_head_and_list_shapes():
    model = DQN([6], [3], encoder_hidden_size_list=[32, 16], dueling=False, head_hidden_size=24, head_layer_num=2)
    linears = [(m.in_features, m.out_features) for m in model.head.modules() if isinstance(m, nn.Linear)]
    assert linears == [(16, 24), (24, 24), (24, 3)]
    assert model(torch.randn(2, 6))['logit'].shape == (2, 3)


def test_dqn_image_obs_uses_conv_encoder():
    model = DQN([4, 84, 84], 6, encoder_hidden_size_list=[32, 64, 64, 128])
    assert isinstance(model.encoder, ConvEncoder)
    convs = [m.out_channels for m in model.encoder.modules() if isinstance(m, nn.Conv2d)]
    assert convs == [32, 64, 64] and model.encoder.fc[0].out_features == 128
    assert model(torch.zeros(2, 4, 84, 84))['logit'].shape == (2, 6)


def test_conv_encoder_accepts_di_engine_atari_sizes():
    encoder = ConvEncoder([4, 84, 84], [128, 128, 512])
    assert [m.out_channels for m in encoder.modules() if isinstance(m, nn.Conv2d)] == [128, 128, 512]
    assert encoder(torch.zeros(1, 4, 84, 84)).shape == (1, 512)


def test_dqn_rejects_bad_shapes():
    with pytest.raises(ValueError, match='one discrete action dimension'):
        DQN(4, [2, 3])
    with pytest.raises(ValueError, match='no encoder for obs_shape'):
        DQN([3, 4], 2)
    with pytest.raises(ValueError, match='3 or 4 hidden sizes'):
        DQN([4, 84, 84], 2, encoder_hidden_size_list=[32, 64])


def test_dqn_is_registered():
    assert MODEL_REGISTRY.lookup('dqn') is DQN
