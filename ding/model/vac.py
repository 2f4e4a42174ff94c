"""`VAC`: a value-actor-critic network for PPO and A2C.

One forward per mode, chosen by `model(obs, mode=...)`:
    compute_actor         -> {'logit': ...}
    compute_critic        -> {'value': [B]}
    compute_actor_critic  -> {'logit': ..., 'value': [B]}
`logit` is a `[B, n_actions]` tensor for discrete actions and `{'mu': [B, d], 'sigma': [B, d]}`
for continuous ones (a Gaussian whose log-std is a learned parameter, not a function of the
observation: the usual choice for PPO, stable and cheap).
"""
import math
from typing import Any, Dict, Optional, Sequence, Type

import torch
from torch import nn

from ding.model.action_mask import masks_actions, strips_action_mask
from ding.model.common import flat_dim, mlp
from ding.model.conv_encoders import build_encoder, is_image
from ding.model.dict_obs import collated_dict_obs

ACTION_SPACES = ('discrete', 'continuous')


class DiscreteActorHead(nn.Module):
    """features -> hidden layers -> one logit per action."""

    def __init__(self, in_dim: int, hidden: int, layer_num: int, action_dim: int,
                 activation: Type[nn.Module]) -> None:
        super().__init__()
        self.net = mlp(in_dim, [hidden] * layer_num, activation, out_dim=action_dim, last_activation=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class GaussianActorHead(nn.Module):
    """features -> hidden layers -> mean; sigma = exp(log_std), one learned log-std per action dim."""

    def __init__(self, in_dim: int, hidden: int, layer_num: int, action_dim: int,
                 activation: Type[nn.Module], log_std_init: float = 0.0) -> None:
        super().__init__()
        self.mu = mlp(in_dim, [hidden] * layer_num, activation, out_dim=action_dim, last_activation=False)
        self.log_std = nn.Parameter(torch.full((action_dim, ), float(log_std_init)))

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        mu = self.mu(x)
        return {'mu': mu, 'sigma': self.log_std.exp().expand_as(mu)}


def actor_head(action_space: str, in_dim: int, hidden: int, layer_num: int, action_shape,
               activation: Type[nn.Module], log_std_init: float = 0.0) -> nn.Module:
    if action_space not in ACTION_SPACES:
        raise ValueError(f'action_space must be one of {ACTION_SPACES}, got {action_space!r}')
    action_dim = flat_dim(action_shape)
    if action_space == 'discrete':
        return DiscreteActorHead(in_dim, hidden, layer_num, action_dim, activation)
    return GaussianActorHead(in_dim, hidden, layer_num, action_dim, activation, log_std_init)


def default_activation(obs_shape: Any) -> Type[nn.Module]:
    """Tanh over vector observations (the usual PPO MLP), ReLU over images (the Nature CNN, as
    the PPO and A2C Atari baselines use it)."""
    return nn.ReLU if is_image(obs_shape) else nn.Tanh


def orthogonal_init_(module: nn.Module, last_layer_gain: float = 0.01) -> None:
    """Orthogonal weights (gain sqrt(2)) and zero biases for every Linear and Conv2d; the last
    Linear of each actor head gets a small gain so the initial policy is close to uniform (helps PPO)."""
    for m in module.modules():
        if isinstance(m, (nn.Linear, nn.Conv2d)):
            nn.init.orthogonal_(m.weight, gain=math.sqrt(2))
            nn.init.zeros_(m.bias)
    for head in module.modules():
        if isinstance(head, (DiscreteActorHead, GaussianActorHead)):
            last = [m for m in head.modules() if isinstance(m, nn.Linear)][-1]
            nn.init.orthogonal_(last.weight, gain=last_layer_gain)


class VAC(nn.Module):
    """Actor and critic over one shared encoder (`share_encoder=True`) or two separate ones: an
    MLP over vector observations, a conv stack over images [C, H, W] (ding/model/conv_encoders.py).
    `activation` None: `default_activation(obs_shape)`."""
    mode = ('compute_actor', 'compute_critic', 'compute_actor_critic')

    def __init__(
            self,
            obs_shape,
            action_shape,
            action_space: str = 'discrete',
            share_encoder: bool = True,
            encoder_hidden_size_list: Sequence[int] = (128, 128, 64),
            actor_head_hidden_size: int = 64,
            actor_head_layer_num: int = 1,
            critic_head_hidden_size: int = 64,
            critic_head_layer_num: int = 1,
            activation: Optional[Type[nn.Module]] = None,
            log_std_init: float = 0.0,
            orthogonal_init: bool = True,
            encoder: Optional[nn.Module] = None,
    ) -> None:
        super().__init__()
        activation = activation or default_activation(obs_shape)
        self.action_space = action_space
        self.share_encoder = share_encoder or encoder is not None
        self._user_encoder = encoder is not None
        if encoder is not None:
            # A user encoder (e.g. over dict observations, whose obs_shape
            # is then a dict) is shared, and its output width is the heads' hidden size.
            self.actor_encoder = self.critic_encoder = encoder
            actor_feat, critic_feat = actor_head_hidden_size, critic_head_hidden_size
        else:
            hidden = list(encoder_hidden_size_list)
            self.actor_encoder = build_encoder(obs_shape, hidden, activation)
            self.critic_encoder = self.actor_encoder if share_encoder else build_encoder(obs_shape, hidden, activation)
            actor_feat = critic_feat = hidden[-1]
        self.actor_head = actor_head(action_space, actor_feat, actor_head_hidden_size, actor_head_layer_num,
                                     action_shape, activation, log_std_init)
        self.critic_head = mlp(critic_feat, [critic_head_hidden_size] * critic_head_layer_num, activation, out_dim=1,
                               last_activation=False)
        if orthogonal_init:  # a user encoder keeps its own initialisation
            for part in ((self, ) if encoder is None else (self.actor_head, self.critic_head)):
                orthogonal_init_(part)

    def forward(self, obs: torch.Tensor, mode: str = 'compute_actor_critic') -> Dict[str, torch.Tensor]:
        if mode not in self.mode:
            raise ValueError(f'VAC mode must be one of {self.mode}, got {mode!r}')
        return getattr(self, mode)(obs)

    def _encoder_input(self, obs: Any) -> Any:
        return collated_dict_obs(obs) if self._user_encoder else obs

    @masks_actions
    def compute_actor(self, obs: torch.Tensor) -> Dict[str, torch.Tensor]:
        return {'logit': self.actor_head(self.actor_encoder(self._encoder_input(obs)))}

    @strips_action_mask
    def compute_critic(self, obs: torch.Tensor) -> Dict[str, torch.Tensor]:
        return {'value': self.critic_head(self.critic_encoder(self._encoder_input(obs))).squeeze(-1)}

    @masks_actions
    def compute_actor_critic(self, obs: torch.Tensor) -> Dict[str, torch.Tensor]:
        obs = self._encoder_input(obs)
        actor_feat = self.actor_encoder(obs)
        critic_feat = actor_feat if self.share_encoder else self.critic_encoder(obs)
        return {'logit': self.actor_head(actor_feat), 'value': self.critic_head(critic_feat).squeeze(-1)}
