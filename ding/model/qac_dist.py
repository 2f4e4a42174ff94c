"""`QACDIST` (D4PG, Barth-Maron et al. 2018): a deterministic actor and a *distributional*
critic. The critic outputs, for (obs, action), a categorical distribution of the return over
`n_atom` fixed values evenly spaced in [v_min, v_max]; Q(s, a) is its mean.

`compute_critic({'obs', 'action'})` -> {'q_value': [B, 1], 'distribution': [B, 1, n_atom]}
(one "action slot", so the C51 loss applies unchanged).
The critic is an `EnsembleMLP` of one member so `critic_dist(..., detach_weights=True)` can
score the actor's action with the critic's weights cut from the graph (one backward per update,
as in `QACPolicyBase`).
"""
from typing import Any, Dict, List, Type, Union

import torch
from torch import nn

from ding.model.common import as_activation_class, flat_dim, mlp
from ding.model.qac import EnsembleMLP
from ding.utils.registry import MODEL_REGISTRY


@MODEL_REGISTRY.register('qac_dist')
class QACDIST(nn.Module):
    mode = ('compute_actor', 'compute_critic')

    def __init__(self, obs_shape: Any, action_shape: Any, action_space: str = 'regression',
                 critic_head_type: str = 'categorical', actor_head_hidden_size: int = 64,
                 actor_head_layer_num: int = 1, critic_head_hidden_size: int = 64, critic_head_layer_num: int = 1,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, norm_type: Any = None,
                 v_min: float = -10, v_max: float = 10, n_atom: int = 51) -> None:
        super().__init__()
        if action_space != 'regression':
            raise ValueError(f"QACDIST supports action_space='regression' (a deterministic actor), "
                             f"got {action_space!r}")
        if critic_head_type != 'categorical':
            raise ValueError(f"QACDIST supports critic_head_type='categorical', got {critic_head_type!r}")
        if norm_type is not None:
            raise ValueError(f'QACDIST supports norm_type=None only; got {norm_type!r}')
        if not v_min < v_max or n_atom < 2:
            raise ValueError(f'a categorical support needs v_min < v_max and n_atom >= 2; '
                             f'got v_min={v_min}, v_max={v_max}, n_atom={n_atom}')
        act = as_activation_class(activation)
        obs_dim, self.action_dim = flat_dim(obs_shape), flat_dim(action_shape)
        self.action_space = action_space
        self.actor = mlp(obs_dim, [actor_head_hidden_size] * (1 + actor_head_layer_num), act,
                         out_dim=self.action_dim, last_activation=False)
        critic_hidden = [critic_head_hidden_size] * (1 + critic_head_layer_num)
        self.critic = EnsembleMLP(1, obs_dim + self.action_dim, critic_hidden, n_atom, act)
        # not in the state dict: it follows from the constructor arguments
        self.register_buffer('support', torch.linspace(v_min, v_max, n_atom), persistent=False)

    def forward(self, inputs: Any, mode: str) -> Dict[str, Any]:
        if mode not in self.mode:
            raise ValueError(f'QACDIST mode must be one of {self.mode}, got {mode!r}')
        return getattr(self, mode)(inputs)

    def actor_params(self) -> List[nn.Parameter]:
        return list(self.actor.parameters())

    def critic_params(self) -> List[nn.Parameter]:
        return list(self.critic.parameters())

    def compute_actor(self, obs: torch.Tensor) -> Dict[str, torch.Tensor]:
        return {'action': torch.tanh(self.actor(obs.flatten(1)))}

    def critic_dist(self, obs: torch.Tensor, action: torch.Tensor, detach_weights: bool = False) -> torch.Tensor:
        """Probabilities of the return over the support, [B, n_atom]."""
        x = torch.cat([obs.flatten(1), action.reshape(len(action), -1).to(obs.dtype)], dim=-1)
        return torch.softmax(self.critic(x, detach_weights)[0], dim=-1)

    def compute_critic(self, inputs: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        dist = self.critic_dist(inputs['obs'], inputs['action'])
        return {'q_value': (dist * self.support).sum(-1, keepdim=True), 'distribution': dist.unsqueeze(1)}
