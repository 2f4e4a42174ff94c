"""`MAVAC`: the multi-agent value-actor-critic network of MAPPO.

Input: the multi-agent observation dict `{agent_state [B, A, obs], global_state [B, g] or
[B, A, g], action_mask [B, A, n]}` (ding/envs/petting_zoo_env.py). Each agent's actor sees its
own `agent_state` (decentralised execution); its critic sees the global state (centralised
training). Outputs keep the agent axis:

    compute_actor         -> {'logit': [B, A, n]}   (masked actions get a large negative logit)
                             or {'logit': {'mu': [B, A, d], 'sigma': [B, A, d]}} (continuous)
    compute_critic        -> {'value': [B, A]}
    compute_actor_critic  -> both

`share_param=True` (the default) applies one actor and one critic to every agent;
`share_param=False` gives each agent its own weights, held as one batched tensor per layer so
all agents still run in a single matmul.
"""
from typing import Any, Dict, Optional, Sequence

import torch
from torch import nn

from ding.model.action_mask import MASKED_LOGIT
from ding.model.common import flat_dim
from ding.model.vac import orthogonal_init_
from ding.utils.registry import MODEL_REGISTRY


class AgentLinear(nn.Module):
    """A Linear layer with its own weights per agent: `[..., A, in] -> [..., A, out]`."""

    def __init__(self, agent_num: int, in_dim: int, out_dim: int) -> None:
        super().__init__()
        layers = [nn.Linear(in_dim, out_dim) for _ in range(agent_num)]  # each initialised as nn.Linear is
        self.weight = nn.Parameter(torch.stack([m.weight.detach().t() for m in layers]))  # [A, in, out]
        self.bias = nn.Parameter(torch.stack([m.bias.detach() for m in layers]))  # [A, out]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.einsum('...ai,aio->...ao', x, self.weight) + self.bias


def agent_mlp(agent_num: int, share: bool, dims: Sequence[int], activation: nn.Module,
              last_activation: bool = False) -> nn.Sequential:
    """Linear layers through `dims`, shared by the agents or one set per agent."""
    layers = []
    for i, (a, b) in enumerate(zip(dims[:-1], dims[1:])):
        layers.append(nn.Linear(a, b) if share else AgentLinear(agent_num, a, b))
        if i < len(dims) - 2 or last_activation:
            layers.append(activation)
    return nn.Sequential(*layers)


@MODEL_REGISTRY.register('mavac')
class MAVAC(nn.Module):
    mode = ('compute_actor', 'compute_critic', 'compute_actor_critic')

    def __init__(
            self,
            agent_obs_shape,
            global_obs_shape,
            action_shape,
            agent_num: int,
            actor_head_hidden_size: int = 256,
            actor_head_layer_num: int = 2,
            critic_head_hidden_size: int = 512,
            critic_head_layer_num: int = 1,
            action_space: str = 'discrete',
            activation: Optional[nn.Module] = None,
            norm_type: Optional[str] = None,
            sigma_type: str = 'independent',
            bound_type: Optional[str] = None,
            encoder: Optional[Any] = None,
            share_param: bool = True,
            orthogonal_init: bool = True,
    ) -> None:
        super().__init__()
        if action_space not in ('discrete', 'continuous'):
            raise ValueError(f"MAVAC action_space must be 'discrete' or 'continuous', got {action_space!r}")
        if norm_type is not None or sigma_type != 'independent' or bound_type is not None:
            raise ValueError(f'MAVAC supports norm_type=None, sigma_type="independent", bound_type=None; got '
                             f'{norm_type!r}, {sigma_type!r}, {bound_type!r}')
        self.agent_num, self.action_space, self.share_param = int(agent_num), action_space, bool(share_param)
        self.global_obs_dim = flat_dim(global_obs_shape)
        act = activation if activation is not None else nn.ReLU()
        action_dim = flat_dim(action_shape)
        A, share = self.agent_num, self.share_param
        if encoder is not None:  # (actor encoder, critic encoder), outputs of the head sizes
            self.actor_encoder, self.critic_encoder = encoder
        else:  # one layer into each head
            self.actor_encoder = agent_mlp(A, share, [flat_dim(agent_obs_shape), actor_head_hidden_size], act, True)
            self.critic_encoder = agent_mlp(A, share, [self.global_obs_dim, critic_head_hidden_size], act, True)
        actor_dims = [actor_head_hidden_size] * (actor_head_layer_num + 1) + [action_dim]
        self.actor_head = agent_mlp(A, share, actor_dims, act)
        self.critic_head = agent_mlp(A, share, [critic_head_hidden_size] * (critic_head_layer_num + 1) + [1], act)
        if action_space == 'continuous':  # state-independent log-std ('independent' sigma)
            self.log_std = nn.Parameter(torch.zeros((action_dim, ) if share else (A, action_dim)))
        if orthogonal_init:
            self._init_weights()

    def _init_weights(self) -> None:
        orthogonal_init_(self)
        for m in self.modules():
            if isinstance(m, AgentLinear):
                for w in m.weight:
                    nn.init.orthogonal_(w, gain=2 ** 0.5)
                nn.init.zeros_(m.bias)
        last = self.actor_head[-1]  # small last actor layer: an almost uniform first policy
        for w in (last.weight if isinstance(last, AgentLinear) else [last.weight]):
            nn.init.orthogonal_(w, gain=0.01)

    def forward(self, inputs: Dict[str, torch.Tensor], mode: str = 'compute_actor_critic') -> Dict[str, Any]:
        if mode not in self.mode:
            raise ValueError(f'MAVAC mode must be one of {self.mode}, got {mode!r}')
        return getattr(self, mode)(inputs)

    def compute_actor(self, x: Dict[str, torch.Tensor]) -> Dict[str, Any]:
        out = self.actor_head(self.actor_encoder(x['agent_state']))
        if self.action_space == 'continuous':
            return {'logit': {'mu': out, 'sigma': self.log_std.exp().expand_as(out)}}
        mask = x.get('action_mask')
        if mask is not None:
            out = out.masked_fill(mask == 0, MASKED_LOGIT)
        return {'logit': out}

    def compute_critic(self, x: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        return {'value': self.critic_head(self.critic_encoder(self._critic_input(x))).squeeze(-1)}

    def compute_actor_critic(self, x: Dict[str, torch.Tensor]) -> Dict[str, Any]:
        return dict(self.compute_actor(x), **self.compute_critic(x))

    def _critic_input(self, x: Dict[str, torch.Tensor]) -> torch.Tensor:
        """`global_state` with an agent axis: one shared state `[B, g]` is repeated per agent."""
        state, agent_state = x['global_state'], x['agent_state']
        if state.dim() == agent_state.dim():
            return state
        return state.unsqueeze(-2).expand(*state.shape[:-1], self.agent_num, state.shape[-1])
