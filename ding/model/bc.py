"""Behaviour-cloning models: `DiscreteBC` (obs -> action logits, a DQN network read as logits)
and `ContinuousBC` (obs -> an action in [-1, 1], deterministic 'regression' or a Gaussian
'reparameterization' head whose mean is squashed by the policy)."""
from typing import Any, Dict, Type

import torch
from torch import nn

from ding.model.common import flat_dim, mlp
from ding.model.dqn import DQN
from ding.model.qac import LOG_SIGMA_MAX, LOG_SIGMA_MIN
from ding.utils.registry import MODEL_REGISTRY


@MODEL_REGISTRY.register('discrete_bc')
class DiscreteBC(DQN):
    """The DQN network (encoder + head); its `logit` output is read as action logits."""


@MODEL_REGISTRY.register('continuous_bc')
class ContinuousBC(nn.Module):
    """`forward(obs)` -> {'action': tanh(out)} ('regression') or {'logit': [mu, sigma]}
    ('reparameterization')."""

    def __init__(self, obs_shape: Any, action_shape: Any, action_space: str = 'regression',
                 actor_head_hidden_size: int = 64, actor_head_layer_num: int = 1,
                 activation: Type[nn.Module] = nn.ReLU) -> None:
        super().__init__()
        if action_space not in ('regression', 'reparameterization'):
            raise ValueError(f"ContinuousBC action_space must be 'regression' or 'reparameterization', "
                             f"got {action_space!r}")
        self.action_space = action_space
        self.action_dim = flat_dim(action_shape)
        hidden = [actor_head_hidden_size] * (1 + actor_head_layer_num)
        self.actor = mlp(flat_dim(obs_shape), hidden, activation)
        self.actor_out = nn.Linear(hidden[-1], self.action_dim * (2 if action_space == 'reparameterization' else 1))

    def forward(self, obs: torch.Tensor) -> Dict[str, Any]:
        out = self.actor_out(self.actor(obs.flatten(1)))
        if self.action_space == 'regression':
            return {'action': torch.tanh(out)}
        mu, log_sigma = out.chunk(2, dim=-1)
        return {'logit': [mu, log_sigma.clamp(LOG_SIGMA_MIN, LOG_SIGMA_MAX).exp()]}
