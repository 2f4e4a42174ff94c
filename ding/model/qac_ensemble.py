"""`QACEnsemble` (EDAC, An et al. 2021): a tanh-Gaussian actor and an ensemble of
`ensemble_num` Q critics, all evaluated by one batched matmul per layer (`EnsembleMLP`).

`compute_actor(obs)` -> {'logit': [mu, sigma]}; `compute_critic({'obs', 'action'})` ->
{'q_value': [ensemble_num, B]}. `EDAC` is another name for it.
"""
from typing import Any, Dict, Optional, Type, Union

import torch
from torch import nn

from ding.model.common import as_activation_class
from ding.model.qac import ContinuousQAC, EnsembleMLP
from ding.utils.registry import MODEL_REGISTRY


@MODEL_REGISTRY.register('edac')
class QACEnsemble(ContinuousQAC):

    def __init__(self, obs_shape: Any, action_shape: Any, ensemble_num: int = 2, actor_head_hidden_size: int = 64,
                 actor_head_layer_num: int = 1, critic_head_hidden_size: int = 64, critic_head_layer_num: int = 1,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, norm_type: Optional[str] = None) -> None:
        if norm_type is not None:
            raise ValueError(f'QACEnsemble supports norm_type=None only; got {norm_type!r}')
        if ensemble_num < 2:
            raise ValueError(f'QACEnsemble needs ensemble_num >= 2 (its losses compare members); got {ensemble_num}')
        act = as_activation_class(activation)
        super().__init__(obs_shape, action_shape, 'reparameterization', twin_critic=False,
                         actor_head_hidden_size=actor_head_hidden_size, actor_head_layer_num=actor_head_layer_num,
                         critic_head_hidden_size=critic_head_hidden_size,
                         critic_head_layer_num=critic_head_layer_num, activation=act)
        self.ensemble_num = ensemble_num
        in_dim = self.critic.weights[0].shape[1]
        self.critic = EnsembleMLP(ensemble_num, in_dim, [critic_head_hidden_size] * (1 + critic_head_layer_num), 1, act)

    def q_per_member_action(self, obs: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
        """Q_k(s, a_k) [k, B] for one action tensor per member, action [k, B, A] (EDAC's
        gradient penalty differentiates each member with respect to its own copy)."""
        obs = obs.flatten(1).unsqueeze(0).expand(self.ensemble_num, -1, -1)
        return self.critic(torch.cat([obs, action.to(obs.dtype)], dim=-1)).squeeze(-1)

    def compute_critic(self, inputs: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        return {'q_value': self.q_all(inputs['obs'], inputs['action'])}


EDAC = QACEnsemble  # DI-engine's class name (ding.model.template.edac)
