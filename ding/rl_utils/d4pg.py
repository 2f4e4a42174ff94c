"""D4PG's losses (Barth-Maron et al. 2018): the C51 cross-entropy for a critic over continuous
actions, and the actor's ascent on the critic's mean.

Critic: the target distribution is that of R + gamma^n (1 - done) Z'(s', mu'(s')), with Z' and
mu' the target networks, projected onto the fixed support (`categorical_projection`); the loss
is the (importance-weighted) cross-entropy of the predicted Z(s, a) against it.

Shapes: dist, next_dist [B, n_atom] probabilities; reward [B] or [B, n] (n-step); done [B]
terminated; nstep [B]; weight [B] or None; support [n_atom].
"""
from typing import Optional

import torch

from ding.rl_utils.distributional import DistTDOutput, categorical_projection


def d4pg_critic_loss(dist: torch.Tensor, next_dist: torch.Tensor, reward: torch.Tensor, done: torch.Tensor,
                     gamma: float, support: torch.Tensor, nstep: Optional[torch.Tensor] = None,
                     weight: Optional[torch.Tensor] = None) -> DistTDOutput:
    """loss = mean_b w_b * CE(target_b, Z(s_b, a_b)); the per-sample CE is the PER priority."""
    with torch.no_grad():
        target = categorical_projection(next_dist, reward.to(dist.dtype), done, gamma, support, nstep)
    cross_entropy = -(target * dist.clamp(min=1e-6).log()).sum(-1)
    weighted = cross_entropy if weight is None else cross_entropy * weight.to(cross_entropy.dtype)
    return DistTDOutput(weighted.mean(), cross_entropy.detach(), (dist.detach() * support).sum(-1),
                        (target * support).sum(-1))


def d4pg_actor_loss(dist_of_actor_action: torch.Tensor, support: torch.Tensor) -> torch.Tensor:
    """-E_s[ E[Z(s, mu(s))] ]: the actor climbs the critic's mean return."""
    return -(dist_of_actor_action * support).sum(-1).mean()
