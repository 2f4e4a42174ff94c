"""EDAC's ensemble-diversity penalty (An et al. 2021, "Uncertainty-Based Offline RL with
Diversified Q-Ensemble").

Offline, out-of-distribution actions are kept pessimistic by the *minimum* over many critics;
EDAC makes that cheaper in critics by pushing their action-gradients apart at dataset actions:

    g_k = grad_a Q_k(s, a) / ||grad_a Q_k(s, a)||        (one unit vector per member)
    loss = mean_b  sum_{i != j} <g_i, g_j> / (N - 1)

Members whose gradients align would agree on OOD actions too; penalising the alignment
spreads their estimates there, which the min then turns into pessimism.
"""
import torch


def ensemble_gradient_diversity_loss(q_per_member: torch.Tensor, action_per_member: torch.Tensor) -> torch.Tensor:
    """q_per_member [N, B] = Q_k(s_b, a_{k,b}) computed from `action_per_member` [N, B, A]
    (a leaf with requires_grad). The penalty keeps its graph, so it trains the critics."""
    n = q_per_member.shape[0]
    grads, = torch.autograd.grad(q_per_member.sum(), action_per_member, create_graph=True)
    grads = grads / (grads.norm(dim=-1, keepdim=True) + 1e-10)
    gram = torch.einsum('iba,jba->bij', grads, grads)  # [B, N, N]
    off_diagonal = gram.sum(dim=(1, 2)) - gram.diagonal(dim1=1, dim2=2).sum(-1)
    return off_diagonal.mean() / (n - 1)
