"""Actor-critic models for off-policy control: `ContinuousQAC` (SAC, TD3, DDPG) and
`DiscreteQAC` (discrete SAC).

Critics are an `EnsembleMLP`: the twin Q-networks of SAC/TD3 share one set of stacked weight
tensors `[k, in, out]`, so both are evaluated with one batched matmul per layer instead of two
Python-level networks. `detach_weights=True` evaluates the critic with its weights cut from
the graph: the actor's loss then reaches only the actor, which lets a learner add actor and
critic losses and do a single backward pass.
"""
import math
from typing import Any, Dict, List, Sequence, Type, Union

import torch
from torch import nn

from ding.model.action_mask import masks_actions, strips_action_mask
from ding.model.common import flat_dim, head_widths, mlp
from ding.utils.registry import MODEL_REGISTRY

LOG_SIGMA_MIN, LOG_SIGMA_MAX = -20.0, 2.0


class EnsembleMLP(nn.Module):
    """`k` independent MLPs evaluated together. Input [B, in] (shared) or [k, B, in];
    output [k, B, out_dim]."""

    def __init__(self, k: int, in_dim: int, hidden: Sequence[int], out_dim: int,
                 activation: Type[nn.Module] = nn.ReLU) -> None:
        super().__init__()
        dims = [in_dim, *hidden, out_dim]
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for a, b in zip(dims[:-1], dims[1:]):
            bound = 1.0 / math.sqrt(a)  # nn.Linear's default init, per member
            self.weights.append(nn.Parameter(torch.empty(k, a, b).uniform_(-bound, bound)))
            self.biases.append(nn.Parameter(torch.empty(k, 1, b).uniform_(-bound, bound)))
        self.activation = activation()
        self.k = k

    def forward(self, x: torch.Tensor, detach_weights: bool = False) -> torch.Tensor:
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            if detach_weights:
                w, b = w.detach(), b.detach()
            x = torch.matmul(x, w) + b if x.dim() == 2 else torch.baddbmm(b, x, w)
            if i < last:
                x = self.activation(x)
        return x


def _unstack(q: torch.Tensor) -> Union[torch.Tensor, List[torch.Tensor]]:
    """[k, B, ...] -> one tensor when k == 1, else a list of k tensors."""
    return q[0] if q.shape[0] == 1 else list(q.unbind(0))


@MODEL_REGISTRY.register('continuous_qac')
class ContinuousQAC(nn.Module):
    """Actor obs -> action in [-1, 1]; critic (obs, action) -> Q.

    action_space='regression': deterministic actor, `compute_actor` -> {'action': tanh(out)}.
    action_space='reparameterization': Gaussian actor, `compute_actor` -> {'logit': [mu, sigma]}
    (the tanh squashing is applied by the policy, where the log-probability is corrected).
    `compute_critic({'obs', 'action'})` -> {'q_value': [B]} or, with `twin_critic`, [q1, q2].
    A head's hidden size is one width over 1 + `*_head_layer_num` layers, or a list of widths.
    """
    mode = ('compute_actor', 'compute_critic')

    def __init__(self, obs_shape: Any, action_shape: Any, action_space: str = 'regression',
                 twin_critic: bool = False, actor_head_hidden_size: Union[int, Sequence[int]] = 64,
                 actor_head_layer_num: int = 1, critic_head_hidden_size: Union[int, Sequence[int]] = 64,
                 critic_head_layer_num: int = 1, activation: Type[nn.Module] = nn.ReLU) -> None:
        super().__init__()
        if action_space not in ('regression', 'reparameterization'):
            raise ValueError(f"ContinuousQAC action_space must be 'regression' or 'reparameterization', "
                             f"got {action_space!r}")
        obs_dim, self.action_dim = flat_dim(obs_shape), flat_dim(action_shape)
        self.action_space = action_space
        self.twin_critic = twin_critic
        actor_hidden = head_widths(actor_head_hidden_size, actor_head_layer_num, 'actor_head_hidden_size')
        self.actor = mlp(obs_dim, actor_hidden, activation)
        n_out = self.action_dim * (2 if action_space == 'reparameterization' else 1)
        self.actor_out = nn.Linear(actor_hidden[-1], n_out)
        critic_hidden = head_widths(critic_head_hidden_size, critic_head_layer_num, 'critic_head_hidden_size')
        self.critic = EnsembleMLP(2 if twin_critic else 1, obs_dim + self.action_dim, critic_hidden, 1, activation)

    def forward(self, inputs: Any, mode: str) -> Dict[str, Any]:
        if mode not in self.mode:
            raise ValueError(f'ContinuousQAC mode must be one of {self.mode}, got {mode!r}')
        return getattr(self, mode)(inputs)

    def actor_params(self) -> List[nn.Parameter]:
        return list(self.actor.parameters()) + list(self.actor_out.parameters())

    def critic_params(self) -> List[nn.Parameter]:
        return list(self.critic.parameters())

    def actor_mu_log_sigma(self, obs: torch.Tensor):
        """The Gaussian head's raw outputs: mean and clamped log standard deviation."""
        mu, log_sigma = self.actor_out(self.actor(obs.flatten(1))).chunk(2, dim=-1)
        return mu, log_sigma.clamp(LOG_SIGMA_MIN, LOG_SIGMA_MAX)

    def compute_actor(self, obs: torch.Tensor) -> Dict[str, Any]:
        if self.action_space == 'regression':
            return {'action': torch.tanh(self.actor_out(self.actor(obs.flatten(1))))}
        mu, log_sigma = self.actor_mu_log_sigma(obs)
        return {'logit': [mu, log_sigma.exp()]}

    def q_all(self, obs: torch.Tensor, action: torch.Tensor, detach_weights: bool = False) -> torch.Tensor:
        """Every critic's Q as one tensor [k, B]."""
        x = torch.cat([obs.flatten(1), action.reshape(len(action), -1).to(obs.dtype)], dim=-1)
        return self.critic(x, detach_weights).squeeze(-1)

    def compute_critic(self, inputs: Dict[str, torch.Tensor]) -> Dict[str, Any]:
        return {'q_value': _unstack(self.q_all(inputs['obs'], inputs['action']))}


@MODEL_REGISTRY.register('discrete_qac')
class DiscreteQAC(nn.Module):
    """Discrete actor-critic for discrete SAC: `compute_actor(obs)` -> {'logit': [B, A]};
    `compute_critic({'obs'})` (or a bare obs tensor) -> {'q_value': [B, A]} or, twin, [q1, q2]."""
    mode = ('compute_actor', 'compute_critic')

    def __init__(self, obs_shape: Any, action_shape: int, twin_critic: bool = False,
                 encoder_hidden_size_list: Sequence[int] = (64, ), actor_head_hidden_size: int = 64,
                 actor_head_layer_num: int = 1, critic_head_hidden_size: int = 64,
                 critic_head_layer_num: int = 1, activation: Type[nn.Module] = nn.ReLU) -> None:
        super().__init__()
        obs_dim, n_action = flat_dim(obs_shape), flat_dim(action_shape)
        self.action_dim = n_action
        self.twin_critic = twin_critic
        self.actor = mlp(obs_dim, [*encoder_hidden_size_list, *[actor_head_hidden_size] * actor_head_layer_num],
                         activation, out_dim=n_action, last_activation=False)
        critic_hidden = [*encoder_hidden_size_list, *[critic_head_hidden_size] * critic_head_layer_num]
        self.critic = EnsembleMLP(2 if twin_critic else 1, obs_dim, critic_hidden, n_action, activation)

    def forward(self, inputs: Any, mode: str) -> Dict[str, Any]:
        if mode not in self.mode:
            raise ValueError(f'DiscreteQAC mode must be one of {self.mode}, got {mode!r}')
        return getattr(self, mode)(inputs)

    def actor_params(self) -> List[nn.Parameter]:
        return list(self.actor.parameters())

    def critic_params(self) -> List[nn.Parameter]:
        return list(self.critic.parameters())

    @masks_actions
    def compute_actor(self, obs: torch.Tensor) -> Dict[str, torch.Tensor]:
        return {'logit': self.actor(obs.flatten(1))}

    @strips_action_mask
    def q_all(self, obs: torch.Tensor, detach_weights: bool = False) -> torch.Tensor:
        """Every critic's Q for all actions, [k, B, A]."""
        return self.critic(obs.flatten(1), detach_weights)

    def compute_critic(self, inputs: Any) -> Dict[str, Any]:
        obs = inputs['obs'] if isinstance(inputs, dict) else inputs
        return {'q_value': _unstack(self.q_all(obs))}


QAC = ContinuousQAC  # DI-engine's ding/example/cql.py imports this name
