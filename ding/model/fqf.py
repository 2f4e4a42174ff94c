"""`FQF` (Yang et al. 2019, "Fully Parameterized Quantile Function"): like IQN, the network
maps a fraction tau to the return's tau-quantile, but the N fractions are proposed per state
by a fraction network instead of sampled.

Outputs:
  'logit'          [B, A]       Q = sum_i (tau_{i+1} - tau_i) F^-1(tau_hat_i)
  'q'              [B, N, A]    quantile values at the midpoints tau_hat_i (the quantile loss)
  'quantiles'      [B, N + 1]   the proposed fractions 0 = tau_0 < ... < tau_N = 1
  'quantiles_hats' [B, N]       the midpoints tau_hat_i = (tau_i + tau_{i+1}) / 2
  'q_tau_i'        [B, N - 1, A] quantile values at tau_1..tau_{N-1} (the fraction loss)
  'entropies'      [B, 1]       entropy of the proposed fraction sizes

The fraction network sees detached features and the quantile values detached fractions, so
the two losses train separate parameters (`fraction_parameters()` and the rest).
"""
from typing import Dict, Iterator, Optional, Sequence, Type, Union

import torch
from torch import nn

from ding.model.action_mask import masks_actions
from ding.model.conv_encoders import build_encoder
from ding.model.dqn import _action_count
from ding.model.common import as_activation_class
from ding.model.iqn import CosineQuantileValues
from ding.utils.registry import MODEL_REGISTRY


class FQFHead(CosineQuantileValues):
    """IQN's cosine quantile values (embedded from frequency 1) at fractions that a linear
    fraction network proposes per state."""

    def __init__(self, hidden_size: int, output_size: int, layer_num: int = 1,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, num_quantiles: int = 32,
                 quantile_embedding_size: int = 128, input_size: Optional[int] = None) -> None:
        input_size = hidden_size if input_size is None else input_size
        fraction_net = nn.Linear(input_size, num_quantiles)  # made first: seeded runs keep their initial weights
        super().__init__(input_size, hidden_size, output_size, layer_num, as_activation_class(activation),
                         quantile_embedding_size, first_frequency=1)
        self.fraction_net = fraction_net

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        log_sizes = torch.log_softmax(self.fraction_net(x.detach()), dim=-1)  # [B, N] fraction sizes, in log
        sizes = log_sizes.exp()
        tau = torch.cat([torch.zeros_like(sizes[:, :1]), sizes.cumsum(-1)], dim=1)  # [B, N + 1]
        tau_hat = ((tau[:, :-1] + tau[:, 1:]) / 2).detach()
        q = self.quantile_values(x.unsqueeze(1), tau_hat.unsqueeze(-1))  # [B, N, A]
        logit = ((tau[:, 1:] - tau[:, :-1]).detach().unsqueeze(-1) * q).sum(1)
        q_tau_i = self.quantile_values(x.unsqueeze(1), tau[:, 1:-1].detach().unsqueeze(-1))
        entropies = -(log_sizes * sizes).sum(-1, keepdim=True)
        return {'logit': logit, 'q': q, 'quantiles': tau, 'quantiles_hats': tau_hat, 'q_tau_i': q_tau_i,
                'entropies': entropies}


@MODEL_REGISTRY.register('fqf')
class FQF(nn.Module):
    """Encoder (MLP or conv) and an `FQFHead`."""

    def __init__(self, obs_shape: Union[int, Sequence[int]], action_shape: Union[int, Sequence[int]],
                 encoder_hidden_size_list: Sequence[int] = (128, 128, 64), head_hidden_size: Optional[int] = None,
                 head_layer_num: int = 1, num_quantiles: int = 32, quantile_embedding_size: int = 128,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, norm_type: Optional[str] = None) -> None:
        super().__init__()
        if norm_type is not None:
            raise ValueError(f'FQF supports norm_type=None only; got {norm_type!r}')
        act = as_activation_class(activation)
        self.encoder = build_encoder(obs_shape, list(encoder_hidden_size_list), act)
        feature_size = self.encoder.output_size
        self.head = FQFHead(head_hidden_size or feature_size, _action_count(action_shape), head_layer_num, act,
                            num_quantiles=num_quantiles, quantile_embedding_size=quantile_embedding_size,
                            input_size=feature_size)

    def fraction_parameters(self) -> Iterator[nn.Parameter]:
        """The fraction network's parameters (trained by the fraction loss alone)."""
        return self.head.fraction_net.parameters()

    @masks_actions
    def forward(self, obs: torch.Tensor) -> Dict[str, torch.Tensor]:
        return self.head(self.encoder(obs))
