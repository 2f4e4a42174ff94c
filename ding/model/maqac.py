"""`MAQAC`: the discrete multi-agent actor-critic of MASAC.

Input: the multi-agent observation dict `{agent_state [B, A, obs], global_state [B, g] or
[B, A, g], action_mask [B, A, n]}` (ding/envs/petting_zoo_env.py). One actor (shared by the
agents) maps each agent's own observation to logits over its actions, masked actions at a large
negative value; one or two critics (shared by the agents) map the global state to the agent's Q
for every action. Outputs keep the agent axis:

    compute_actor(obs)  -> {'logit': [B, A, n]}
    q_all(obs)          -> [k, B, A, n]      (k = 2 with twin_critic)
    compute_critic(obs) -> {'q_value': [B, A, n]} or, twin, [q1, q2]
"""
from typing import Any, Dict, List, Optional, Type

import torch
from torch import nn

from ding.model.action_mask import MASKED_LOGIT
from ding.model.common import flat_dim, mlp
from ding.model.qac import EnsembleMLP
from ding.utils.registry import MODEL_REGISTRY


@MODEL_REGISTRY.register('maqac')
class MAQAC(nn.Module):
    mode = ('compute_actor', 'compute_critic')

    def __init__(self, agent_obs_shape: Any, global_obs_shape: Any, action_shape: Any, twin_critic: bool = False,
                 actor_head_hidden_size: int = 64, actor_head_layer_num: int = 1, critic_head_hidden_size: int = 64,
                 critic_head_layer_num: int = 1, activation: Type[nn.Module] = nn.ReLU,
                 norm_type: Optional[str] = None) -> None:
        super().__init__()
        if norm_type is not None:
            raise ValueError(f'MAQAC supports norm_type=None, got {norm_type!r}')
        self.action_dim, self.twin_critic = flat_dim(action_shape), bool(twin_critic)
        self.actor = mlp(flat_dim(agent_obs_shape), [actor_head_hidden_size] * (actor_head_layer_num + 1),
                         activation, out_dim=self.action_dim, last_activation=False)
        self.critic = EnsembleMLP(2 if twin_critic else 1, flat_dim(global_obs_shape),
                                  [critic_head_hidden_size] * (critic_head_layer_num + 1), self.action_dim,
                                  activation)

    def forward(self, inputs: Dict[str, torch.Tensor], mode: str) -> Dict[str, Any]:
        if mode not in self.mode:
            raise ValueError(f'MAQAC mode must be one of {self.mode}, got {mode!r}')
        return getattr(self, mode)(inputs)

    def actor_params(self) -> List[nn.Parameter]:
        return list(self.actor.parameters())

    def critic_params(self) -> List[nn.Parameter]:
        return list(self.critic.parameters())

    def compute_actor(self, obs: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        obs = _obs(obs)
        logit = self.actor(obs['agent_state'])
        mask = obs.get('action_mask')
        return {'logit': logit if mask is None else logit.masked_fill(mask == 0, MASKED_LOGIT)}

    def q_all(self, obs: Dict[str, torch.Tensor], detach_weights: bool = False) -> torch.Tensor:
        obs = _obs(obs)
        state, agent_state = obs['global_state'], obs['agent_state']
        b, a = agent_state.shape[:2]
        if state.dim() == 2:  # one global state, valued for each agent
            state = state.unsqueeze(1).expand(b, a, state.shape[-1])
        return self.critic(state.reshape(b * a, -1), detach_weights).view(-1, b, a, self.action_dim)

    def compute_critic(self, obs: Dict[str, torch.Tensor]) -> Dict[str, Any]:
        q = self.q_all(obs)
        return {'q_value': list(q.unbind(0)) if self.twin_critic else q[0]}


def _obs(inputs: Any) -> Any:
    """The critic takes the observation dict itself or wrapped as `{'obs': {...}}`."""
    return inputs['obs'] if 'obs' in inputs else inputs
