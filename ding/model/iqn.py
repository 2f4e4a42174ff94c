"""`IQN` (Dabney et al. 2018, "Implicit Quantile Networks"): the network takes a quantile
fraction tau ~ U(0, 1) as an input, next to the state, and returns the return's tau-quantile
for each action. Each forward samples `num_quantiles` fractions per state.

Outputs (quantile-major):
  'logit'     [B, A]     Q = mean of the sampled quantile values (greedy acting uses it)
  'q'         [N, B, A]  the quantile values
  'quantiles' [N * B, 1] the sampled fractions; row k * B + b belongs to q[k, b]
"""
import math
from typing import Dict, Optional, Sequence, Type, Union

import torch
from torch import nn

from ding.model.action_mask import masks_actions
from ding.model.common import as_activation_class, mlp
from ding.model.conv_encoders import build_encoder
from ding.model.dqn import _action_count
from ding.utils.registry import MODEL_REGISTRY


class CosineQuantileValues(nn.Module):
    """F^-1(tau) per action from state features x and fractions tau: phi(tau) = act(W cos(pi i tau) + b)
    for i = first_frequency .. first_frequency + E - 1 (the cosine embedding of IQN, which FQF
    reuses), multiplied elementwise into x, then an MLP to one value per action."""

    def __init__(self, input_size: int, hidden_size: int, output_size: int, layer_num: int, act: Type[nn.Module],
                 embedding_size: int, first_frequency: int) -> None:
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(embedding_size, input_size), act())
        self.register_buffer('frequencies', math.pi * torch.arange(first_frequency, first_frequency + embedding_size,
                                                                   dtype=torch.float32), persistent=False)
        self.net = mlp(input_size, [hidden_size] * layer_num, act, out_dim=output_size, last_activation=False)

    def quantile_values(self, x: torch.Tensor, tau: torch.Tensor) -> torch.Tensor:
        """tau [..., 1] and x broadcastable to [..., H] -> [..., A]."""
        return self.net(x * self.embed(torch.cos(tau * self.frequencies)))


class QuantileHead(CosineQuantileValues):
    """IQN's head: `num_quantiles` fractions sampled per state, embedded from frequency 0."""

    def __init__(self, hidden_size: int, output_size: int, layer_num: int = 1,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, num_quantiles: int = 32,
                 quantile_embedding_size: int = 128, input_size: Optional[int] = None) -> None:
        super().__init__(hidden_size if input_size is None else input_size, hidden_size, output_size, layer_num,
                         as_activation_class(activation), quantile_embedding_size, first_frequency=0)
        self.num_quantiles = num_quantiles

    def forward(self, x: torch.Tensor, num_quantiles: Optional[int] = None) -> Dict[str, torch.Tensor]:
        n, batch = num_quantiles or self.num_quantiles, x.shape[0]
        tau = torch.rand(n * batch, 1, device=x.device, dtype=x.dtype)
        q = self.quantile_values(x.repeat(n, 1), tau).view(n, batch, -1)  # repeat: row k * B + b is state b
        return {'logit': q.mean(0), 'q': q, 'quantiles': tau}


@MODEL_REGISTRY.register('iqn')
class IQN(nn.Module):
    """Encoder (MLP or conv) and a `QuantileHead`."""

    def __init__(self, obs_shape: Union[int, Sequence[int]], action_shape: Union[int, Sequence[int]],
                 encoder_hidden_size_list: Sequence[int] = (128, 128, 64), head_hidden_size: Optional[int] = None,
                 head_layer_num: int = 1, num_quantiles: int = 32, quantile_embedding_size: int = 128,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, norm_type: Optional[str] = None) -> None:
        super().__init__()
        if norm_type is not None:
            raise ValueError(f'IQN supports norm_type=None only; got {norm_type!r}')
        act = as_activation_class(activation)
        self.encoder = build_encoder(obs_shape, list(encoder_hidden_size_list), act)
        feature_size = self.encoder.output_size
        self.head = QuantileHead(head_hidden_size or feature_size, _action_count(action_shape), head_layer_num, act,
                                 num_quantiles=num_quantiles, quantile_embedding_size=quantile_embedding_size,
                                 input_size=feature_size)

    @masks_actions
    def forward(self, obs: torch.Tensor, num_quantiles: Optional[int] = None) -> Dict[str, torch.Tensor]:
        return self.head(self.encoder(obs), num_quantiles)
