"""`PPG` (Phasic Policy Gradient, Cobbe et al. 2021): the policy network (a `VAC`, whose value
head is PPG's *auxiliary* value head) plus a separate value network.

    compute_actor         -> {'logit'}                      the policy
    compute_critic        -> {'value': [B]}                 the value network (trained every update)
    compute_actor_critic  -> {'logit', 'value': [B]}        the policy with its auxiliary value head
                                                            (distilled in the auxiliary phase)
The two networks are the attributes `actor_critic` (the policy) and `aux_critic` (the value network).
"""
from typing import Any, Dict, Optional, Sequence, Type, Union

import torch
from torch import nn

from ding.model.action_mask import strips_action_mask
from ding.model.common import as_activation_class, mlp
from ding.model.conv_encoders import build_encoder
from ding.model.vac import VAC, orthogonal_init_
from ding.utils.registry import MODEL_REGISTRY


@MODEL_REGISTRY.register('ppg')
class PPG(nn.Module):
    mode = ('compute_actor', 'compute_critic', 'compute_actor_critic')

    def __init__(self, obs_shape: Any, action_shape: Any, action_space: str = 'discrete', share_encoder: bool = True,
                 encoder_hidden_size_list: Sequence[int] = (128, 128, 64), actor_head_hidden_size: int = 64,
                 actor_head_layer_num: int = 2, critic_head_hidden_size: int = 64, critic_head_layer_num: int = 1,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, norm_type: Optional[str] = None,
                 impala_cnn_encoder: bool = False) -> None:
        super().__init__()
        if norm_type is not None or impala_cnn_encoder:
            raise ValueError(f'PPG supports norm_type=None and impala_cnn_encoder=False only; got '
                             f'norm_type={norm_type!r}, impala_cnn_encoder={impala_cnn_encoder!r}')
        act = as_activation_class(activation)
        self.actor_critic = VAC(obs_shape, action_shape, action_space, share_encoder, encoder_hidden_size_list,
                                actor_head_hidden_size, actor_head_layer_num, critic_head_hidden_size,
                                critic_head_layer_num, act)
        self.aux_critic = nn.Sequential(
            build_encoder(obs_shape, list(encoder_hidden_size_list), act),
            mlp(encoder_hidden_size_list[-1], [critic_head_hidden_size] * critic_head_layer_num, act, out_dim=1,
                last_activation=False))
        orthogonal_init_(self.aux_critic)

    def forward(self, obs: Any, mode: str) -> Dict[str, Any]:
        if mode not in self.mode:
            raise ValueError(f'PPG mode must be one of {self.mode}, got {mode!r}')
        return getattr(self, mode)(obs)

    def compute_actor(self, obs: torch.Tensor) -> Dict[str, Any]:
        return self.actor_critic.compute_actor(obs)

    @strips_action_mask
    def compute_critic(self, obs: torch.Tensor) -> Dict[str, torch.Tensor]:
        return {'value': self.aux_critic(obs).squeeze(-1)}

    def compute_actor_critic(self, obs: torch.Tensor) -> Dict[str, Any]:
        return self.actor_critic.compute_actor_critic(obs)
