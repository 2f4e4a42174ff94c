"""T-REX (Brown et al. 2019): learning a reward from ranked demonstrations.

A reward net r(s) scores every observation of two trajectory snippets; their predicted returns
R_i = sum r(s_i), R_j = sum r(s_j) are the logits of a two-way choice "which snippet comes from
the better demonstration". The loss is that choice's cross-entropy (Bradley-Terry), plus an
optional L1 penalty on the per-step rewards' size.
"""
import torch
import torch.nn.functional as F


def trex_ranking_loss(return_i: torch.Tensor, return_j: torch.Tensor, label: torch.Tensor,
                      abs_reward_sum: torch.Tensor = None, l1_reg: float = 0.0) -> torch.Tensor:
    """Mean over pairs of -log softmax([R_i, R_j])[label] (+ l1_reg * sum |r|).

    `return_i`, `return_j`: [B] predicted returns of the two snippets; `label`: [B] ints, 1 when
    snippet j is the preferred one (from the better-ranked demonstration), 0 when i is.
    `abs_reward_sum`: [B] sum of |r(s)| over both snippets, needed only when l1_reg > 0."""
    logits = torch.stack([return_i, return_j], dim=-1)
    loss = F.cross_entropy(logits, label.long())
    if l1_reg:
        if abs_reward_sum is None:
            raise ValueError('trex_ranking_loss: l1_reg > 0 needs abs_reward_sum')
        loss = loss + l1_reg * abs_reward_sum.mean()
    return loss


def trex_preference_accuracy(return_i: torch.Tensor, return_j: torch.Tensor, label: torch.Tensor) -> float:
    """Share of pairs whose larger predicted return is the preferred snippet's."""
    return ((return_j > return_i).long() == label.long()).float().mean().item()
