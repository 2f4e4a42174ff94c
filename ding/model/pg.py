"""`PG`: a policy-only network for REINFORCE (no critic: the return is the learning signal).

`model(obs)` -> {'logit': [B, n_actions]} (discrete) or {'logit': {'mu', 'sigma'}} (continuous).
"""
from typing import Dict, Optional, Sequence, Type

import torch
from torch import nn

from ding.model.action_mask import masks_actions
from ding.model.conv_encoders import build_encoder
from ding.model.vac import actor_head, default_activation, orthogonal_init_


class PG(nn.Module):

    def __init__(
            self,
            obs_shape,
            action_shape,
            action_space: str = 'discrete',
            encoder_hidden_size_list: Sequence[int] = (128, 128, 64),
            head_hidden_size: int = None,
            head_layer_num: int = 1,
            activation: Optional[Type[nn.Module]] = None,  # None: default_activation(obs_shape)
            log_std_init: float = 0.0,
            orthogonal_init: bool = True,
    ) -> None:
        super().__init__()
        activation = activation or default_activation(obs_shape)
        self.action_space = action_space
        hidden = list(encoder_hidden_size_list)
        self.encoder = build_encoder(obs_shape, hidden, activation)
        self.head = actor_head(action_space, hidden[-1], head_hidden_size or hidden[-1], head_layer_num,
                               action_shape, activation, log_std_init)
        if orthogonal_init:
            orthogonal_init_(self)

    @masks_actions
    def forward(self, obs: torch.Tensor, mode: str = 'compute_actor') -> Dict[str, torch.Tensor]:
        if mode != 'compute_actor':
            raise ValueError(f"PG has only mode 'compute_actor', got {mode!r}")
        return {'logit': self.head(self.encoder(obs))}
