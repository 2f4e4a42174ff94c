"""`QRDQN` (Dabney et al. 2018, "Distributional RL with Quantile Regression"): per action,
`num_quantiles` return values at the fixed quantile fractions tau_i = (2i + 1) / (2N).

Outputs `{'logit': Q [B, A], 'q': quantile values [B, A, N], 'tau': fractions [B, N, 1]}`
with Q the mean of the quantile values (each quantile carries probability 1/N).
"""
from typing import Dict, Optional, Sequence, Type, Union

import torch
from torch import nn

from ding.model.action_mask import masks_actions
from ding.model.common import as_activation_class, mlp
from ding.model.conv_encoders import build_encoder
from ding.model.dqn import _action_count
from ding.utils.registry import MODEL_REGISTRY


class QRDQNHead(nn.Module):

    def __init__(self, hidden_size: int, output_size: int, layer_num: int = 1,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, num_quantiles: int = 32,
                 input_size: Optional[int] = None) -> None:
        super().__init__()
        input_size = hidden_size if input_size is None else input_size
        self.output_size, self.num_quantiles = output_size, num_quantiles
        self.net = mlp(input_size, [hidden_size] * layer_num, as_activation_class(activation),
                       out_dim=output_size * num_quantiles, last_activation=False)
        # the midpoints of N equal probability bins: the fractions each output estimates
        edges = torch.linspace(0, 1, num_quantiles + 1)
        self.register_buffer('tau', (edges[:-1] + edges[1:]) / 2, persistent=False)

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        q = self.net(x).view(*x.shape[:-1], self.output_size, self.num_quantiles)
        tau = self.tau.view(1, -1, 1).expand(x.shape[0], -1, -1)
        return {'logit': q.mean(-1), 'q': q, 'tau': tau}


@MODEL_REGISTRY.register('qrdqn')
class QRDQN(nn.Module):
    """Encoder (MLP or conv) and a `QRDQNHead`."""

    def __init__(self, obs_shape: Union[int, Sequence[int]], action_shape: Union[int, Sequence[int]],
                 encoder_hidden_size_list: Sequence[int] = (128, 128, 64), head_hidden_size: Optional[int] = None,
                 head_layer_num: int = 1, num_quantiles: int = 32,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, norm_type: Optional[str] = None) -> None:
        super().__init__()
        if norm_type is not None:
            raise ValueError(f'QRDQN supports norm_type=None only; got {norm_type!r}')
        act = as_activation_class(activation)
        self.encoder = build_encoder(obs_shape, list(encoder_hidden_size_list), act)
        feature_size = self.encoder.output_size
        self.head = QRDQNHead(head_hidden_size or feature_size, _action_count(action_shape), head_layer_num, act,
                              num_quantiles=num_quantiles, input_size=feature_size)

    @masks_actions
    def forward(self, obs: torch.Tensor) -> Dict[str, torch.Tensor]:
        return self.head(self.encoder(obs))
