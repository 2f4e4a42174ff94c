"""`BCQ` (Fujimoto et al. 2019): a VAE of the dataset's actions, a perturbation actor that moves
a decoded action by at most `phi`, and twin critics (an `EnsembleMLP`, as in `ContinuousQAC`)."""
from typing import Any, Dict, List, Sequence, Tuple, Type

import torch
from torch import nn

from ding.model.common import flat_dim, mlp
from ding.model.qac import EnsembleMLP
from ding.utils.registry import MODEL_REGISTRY


@MODEL_REGISTRY.register('bcq')
class BCQ(nn.Module):
    mode = ('compute_actor', 'compute_critic', 'compute_vae', 'compute_eval')

    def __init__(self, obs_shape: Any, action_shape: Any, actor_head_hidden_size: Sequence[int] = (400, 300),
                 critic_head_hidden_size: Sequence[int] = (400, 300), activation: Type[nn.Module] = nn.ReLU,
                 vae_hidden_dims: Sequence[int] = (750, 750), phi: float = 0.05) -> None:
        super().__init__()
        obs_dim, self.action_dim = flat_dim(obs_shape), flat_dim(action_shape)
        self.latent_dim = 2 * self.action_dim
        self.phi = phi
        self.actor = mlp(obs_dim + self.action_dim, list(actor_head_hidden_size), activation, out_dim=self.action_dim,
                         last_activation=False)
        self.critic = EnsembleMLP(2, obs_dim + self.action_dim, list(critic_head_hidden_size), 1, activation)
        self.encoder = mlp(obs_dim + self.action_dim, list(vae_hidden_dims), activation, out_dim=2 * self.latent_dim,
                           last_activation=False)
        self.decoder = mlp(obs_dim + self.latent_dim, list(vae_hidden_dims), activation, out_dim=self.action_dim,
                           last_activation=False)

    def actor_params(self) -> List[nn.Parameter]:
        return list(self.actor.parameters())

    def critic_params(self) -> List[nn.Parameter]:
        return list(self.critic.parameters())

    def vae_params(self) -> List[nn.Parameter]:
        return list(self.encoder.parameters()) + list(self.decoder.parameters())

    def perturb(self, obs: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
        """a + phi * tanh(xi(s, a)), clipped to [-1, 1]."""
        xi = self.actor(torch.cat([obs.flatten(1), action], dim=-1))
        return (action + self.phi * torch.tanh(xi)).clamp(-1.0, 1.0)

    def q_all(self, obs: torch.Tensor, action: torch.Tensor, detach_weights: bool = False) -> torch.Tensor:
        """Both critics' Q, [2, B]."""
        x = torch.cat([obs.flatten(1), action.reshape(len(action), -1).to(obs.dtype)], dim=-1)
        return self.critic(x, detach_weights).squeeze(-1)

    def encode(self, obs: torch.Tensor, action: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        mu, log_std = self.encoder(torch.cat([obs.flatten(1), action], dim=-1)).chunk(2, dim=-1)
        return mu, log_std.clamp(-4.0, 15.0)

    def decode(self, obs: torch.Tensor, z: torch.Tensor = None) -> torch.Tensor:
        """An action in [-1, 1]; z defaults to a clipped standard normal (the VAE's likely region)."""
        if z is None:
            z = torch.randn(len(obs), self.latent_dim, device=obs.device).clamp(-0.5, 0.5)
        return torch.tanh(self.decoder(torch.cat([obs.flatten(1), z], dim=-1)))

    def compute_vae(self, inputs: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        mu, log_std = self.encode(inputs['obs'], inputs['action'])
        z = mu + log_std.exp() * torch.randn_like(mu)
        return {'recons_action': self.decode(inputs['obs'], z), 'mu': mu, 'log_std': log_std}

    def compute_actor(self, inputs: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        return {'action': self.perturb(inputs['obs'], inputs['action'])}

    def compute_critic(self, inputs: Dict[str, torch.Tensor]) -> Dict[str, Any]:
        return {'q_value': list(self.q_all(inputs['obs'], inputs['action']).unbind(0))}

    def compute_eval(self, obs: torch.Tensor, n_samples: int = 10) -> Dict[str, torch.Tensor]:
        """The best (by the first critic) of `n_samples` perturbed decoded actions per state."""
        rep = obs.flatten(1).repeat_interleave(n_samples, 0)
        action = self.perturb(rep, self.decode(rep))
        best = self.q_all(rep, action)[0].view(len(obs), n_samples).argmax(1)
        return {'action': action.view(len(obs), n_samples, -1)[torch.arange(len(obs)), best]}

    def forward(self, inputs: Any, mode: str) -> Dict[str, Any]:
        if mode not in self.mode:
            raise ValueError(f'BCQ mode must be one of {self.mode}, got {mode!r}')
        return getattr(self, mode)(inputs)
