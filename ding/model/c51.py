"""`C51DQN` (Bellemare et al. 2017): per action, a categorical distribution of the return over
`n_atom` fixed values (the support) evenly spaced in [v_min, v_max].

Outputs `{'logit': Q [B, A], 'distribution': probabilities [B, A, n_atom]}` with
Q(s, a) = sum_i z_i p_i(s, a), so greedy acting on 'logit' works as for DQN.
"""
from typing import Dict, Optional, Sequence, Type, Union

import torch
from torch import nn

from ding.model.action_mask import masks_actions
from ding.model.common import as_activation_class, mlp
from ding.model.conv_encoders import build_encoder
from ding.model.dqn import _action_count
from ding.utils.registry import MODEL_REGISTRY


class DistributionHead(nn.Module):
    """Features -> softmax over atoms for each action, and its mean under the support."""

    def __init__(self, hidden_size: int, output_size: int, layer_num: int = 1,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, n_atom: int = 51, v_min: float = -10,
                 v_max: float = 10, input_size: Optional[int] = None) -> None:
        super().__init__()
        if not v_min < v_max or n_atom < 2:
            raise ValueError(f'a categorical support needs v_min < v_max and n_atom >= 2; '
                             f'got v_min={v_min}, v_max={v_max}, n_atom={n_atom}')
        input_size = hidden_size if input_size is None else input_size
        self.output_size, self.n_atom = output_size, n_atom
        self.net = mlp(input_size, [hidden_size] * layer_num, as_activation_class(activation),
                       out_dim=output_size * n_atom, last_activation=False)
        # not in the state dict: it follows from the constructor arguments
        self.register_buffer('support', torch.linspace(v_min, v_max, n_atom), persistent=False)

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        atoms = self.net(x).view(*x.shape[:-1], self.output_size, self.n_atom)
        dist = torch.softmax(atoms, dim=-1)
        return {'logit': (dist * self.support).sum(-1), 'distribution': dist}


@MODEL_REGISTRY.register('c51dqn')
class C51DQN(nn.Module):
    """Encoder (MLP or conv) and a `DistributionHead`."""

    def __init__(self, obs_shape: Union[int, Sequence[int]], action_shape: Union[int, Sequence[int]],
                 encoder_hidden_size_list: Sequence[int] = (128, 128, 64), head_hidden_size: Optional[int] = None,
                 head_layer_num: int = 1, activation: Union[Type[nn.Module], nn.Module] = nn.ReLU,
                 norm_type: Optional[str] = None, v_min: float = -10, v_max: float = 10, n_atom: int = 51) -> None:
        super().__init__()
        if norm_type is not None:
            raise ValueError(f'C51DQN supports norm_type=None only; got {norm_type!r}')
        act = as_activation_class(activation)
        self.encoder = build_encoder(obs_shape, list(encoder_hidden_size_list), act)
        feature_size = self.encoder.output_size
        self.head = DistributionHead(head_hidden_size or feature_size, _action_count(action_shape), head_layer_num,
                                     act, n_atom=n_atom, v_min=v_min, v_max=v_max, input_size=feature_size)

    @property
    def support(self) -> torch.Tensor:
        """The atoms z_i [n_atom] the distribution is over (the loss projects onto them)."""
        return self.head.support

    @masks_actions
    def forward(self, obs: torch.Tensor) -> Dict[str, torch.Tensor]:
        return self.head(self.encoder(obs))
