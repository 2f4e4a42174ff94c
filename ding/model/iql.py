"""`IQLModel`: `ContinuousQAC` (a tanh-Gaussian actor, twin critics) plus the state-value
network V(s) that implicit Q-learning fits by expectile regression."""
from typing import Any, List, Type

import torch
from torch import nn

from ding.model.common import flat_dim, mlp
from ding.model.qac import ContinuousQAC
from ding.utils.registry import MODEL_REGISTRY


@MODEL_REGISTRY.register('iql')
class IQLModel(ContinuousQAC):

    def __init__(self, obs_shape: Any, action_shape: Any, action_space: str = 'reparameterization',
                 twin_critic: bool = True, actor_head_hidden_size: int = 256, actor_head_layer_num: int = 1,
                 critic_head_hidden_size: int = 256, critic_head_layer_num: int = 1,
                 activation: Type[nn.Module] = nn.ReLU) -> None:
        super().__init__(obs_shape, action_shape, action_space, twin_critic, actor_head_hidden_size,
                         actor_head_layer_num, critic_head_hidden_size, critic_head_layer_num, activation)
        self.value = mlp(flat_dim(obs_shape), [critic_head_hidden_size] * (1 + critic_head_layer_num), activation,
                         out_dim=1, last_activation=False)

    def compute_value(self, obs: torch.Tensor) -> torch.Tensor:
        """V(s), [B]."""
        return self.value(obs.flatten(1)).squeeze(-1)

    def value_params(self) -> List[nn.Parameter]:
        return list(self.value.parameters())
