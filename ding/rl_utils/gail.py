"""GAIL (Ho & Ermon 2016): the discriminator's loss and the reward it gives.

D(s, a) in (0, 1) is the probability that a state-action pair is the agent's rather than the
expert's. The discriminator is trained to tell them apart; the policy
is then rewarded for pairs that look like the expert's, where D is small.
"""
import torch

EPS = 1e-8  # keeps log finite where the sigmoid saturates


def gail_discriminator_loss(d_agent: torch.Tensor, d_expert: torch.Tensor) -> torch.Tensor:
    """-(E_agent[log D] + E_expert[log(1 - D)]): minimal when D is 1 on the agent's pairs and 0
    on the expert's. Inputs are D's outputs in (0, 1), any shape."""
    return -(torch.log(d_agent + EPS).mean() + torch.log(1 - d_expert + EPS).mean())


def gail_reward(d: torch.Tensor) -> torch.Tensor:
    """r(s, a) = -log D(s, a): near 0 for pairs the discriminator calls the agent's, large for
    pairs it takes for the expert's. Always >= 0, so it also rewards staying alive."""
    return -torch.log(d + EPS)
