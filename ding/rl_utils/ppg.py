"""Phasic Policy Gradient's auxiliary-phase loss (Cobbe et al. 2021).

The policy network's auxiliary value head is distilled towards the returns, while a behaviour-
cloning term keeps the policy where it was before the phase started:

    auxiliary_loss         = 0.5 * mean_b w_b (V_aux(s_b) - R_b)^2
    behavioral_cloning_loss = mean_b w_b KL(pi_old(.|s_b) || pi(.|s_b))

The PPG learner minimises auxiliary_loss + aux_bc_weight * behavioral_cloning_loss. `logit`s are
[B, A] tensors (discrete) or {'mu', 'sigma'} (diagonal Gaussian).
"""
from typing import Dict, NamedTuple, Optional, Union

import torch
from torch.distributions import Categorical, Independent, Normal, kl_divergence

Logit = Union[torch.Tensor, Dict[str, torch.Tensor]]


class PPGJointLoss(NamedTuple):
    auxiliary_loss: torch.Tensor
    behavioral_cloning_loss: torch.Tensor


def _distribution(logit: Logit) -> torch.distributions.Distribution:
    if isinstance(logit, torch.Tensor):
        return Categorical(logits=logit, validate_args=False)
    return Independent(Normal(logit['mu'], logit['sigma'], validate_args=False), 1, validate_args=False)


def ppg_joint_loss(logit_new: Logit, logit_old: Logit, aux_value: torch.Tensor, return_: torch.Tensor,
                   weight: Optional[torch.Tensor] = None) -> PPGJointLoss:
    """The two auxiliary-phase terms; `logit_old` and `return_` carry no gradient."""
    value_error = 0.5 * (aux_value - return_.detach()).pow(2)
    old = _distribution({k: v.detach() for k, v in logit_old.items()} if isinstance(logit_old, dict)
                        else logit_old.detach())
    kl = kl_divergence(old, _distribution(logit_new))
    if weight is not None:
        value_error, kl = value_error * weight, kl * weight
    return PPGJointLoss(value_error.mean(), kl.mean())
