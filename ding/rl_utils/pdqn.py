"""P-DQN's loss (Xiong et al. 2018) for parameterised actions: a discrete type k with continuous
args x. Q(s, k, x) is learnt by Q-learning, the parameter network x(s) by climbing Q.

Shapes: q_data [B, K] = Q(s, ., x_data) at the stored args; q_pi [B, K] = Q(s, ., x(s)) with the
gradient flowing into x(s); next_q_target / next_q_online [B, K] = Q(s', ., x(s')) from the target
and online nets; action_type [B]; reward [B] or n-step [B, n]; done [B]; nstep, weight [B].
"""
from typing import NamedTuple, Optional

import torch

from ding.rl_utils.td import q_nstep_td_error


class PDQNLoss(NamedTuple):
    q_loss: torch.Tensor  # scalar; 0 when q_data is None
    args_loss: torch.Tensor  # scalar; 0 when q_pi is None
    td_error_abs: Optional[torch.Tensor]  # [B], no gradient
    q_sa: Optional[torch.Tensor]  # [B], no gradient
    target: Optional[torch.Tensor]  # [B]


def pdqn_error(q_data: Optional[torch.Tensor], q_pi: Optional[torch.Tensor], next_q_target: Optional[torch.Tensor],
               action_type: Optional[torch.Tensor], reward: Optional[torch.Tensor], done: Optional[torch.Tensor],
               gamma: float, nstep: Optional[torch.Tensor] = None, weight: Optional[torch.Tensor] = None,
               next_q_online: Optional[torch.Tensor] = None) -> PDQNLoss:
    """q_loss = mean_b w_b (Q(s, k_b, x_b) - y_b)^2, y = n-step return + gamma^n (1 - done) Q_target(s', k*, x(s')),
    k* = argmax of the online Q at s' when `next_q_online` is given (double DQN), else of the target's;
    args_loss = -mean_b sum_k Q(s, k, x(s)): every type's value rises with x(s), as in the paper
    (only the parameter network's optimiser should step on it).
    Either half may be skipped (None) when the caller alternates the two updates."""
    zero = torch.zeros(())
    if q_data is not None:
        td = q_nstep_td_error(q_data, next_q_target, action_type, reward, done, gamma, nstep=nstep, weight=weight,
                              next_q_online=next_q_online)
        q_loss, td_abs, q_sa, target = td.loss, td.td_error_abs, td.q_sa, td.target
    else:
        q_loss, td_abs, q_sa, target = zero.to(q_pi.device), None, None, None
    args_loss = -q_pi.sum(dim=-1).mean() if q_pi is not None else zero.to(q_loss.device)
    return PDQNLoss(q_loss, args_loss, td_abs, q_sa, target)
