"""V-trace (Espeholt et al. 2018, IMPALA): off-policy value targets and policy-gradient
advantages for trajectories collected by an older (behaviour) policy mu, learned by pi.

Time-major tensors [T, B]. With rho_t = pi(a_t|x_t) / mu(a_t|x_t):

    rho_bar_t = min(rho_clip_ratio, rho_t)          c_t = lambda_ * min(c_clip_ratio, rho_t)
    delta_t   = rho_bar_t * (r_t + gamma_t * V(x'_t) - V(x_t))
    vs_t      = V(x_t) + delta_t + gamma_t * c_t * (vs_{t+1} - V(x_{t+1}))
    adv_t     = min(rho_pg_clip_ratio, rho_t) * (r_t + gamma_t * vs'_{t+1} - V(x_t))

where x'_t is step t's next observation, gamma_t = gamma * (1 - done_t) (no bootstrap after a
terminal step), and the trace stops where an episode ends inside the window (a new episode's
targets do not flow back into the old one); there vs'_{t+1} is V(x'_t), as at the window's end.
With pi == mu (rho = 1, clip ratios >= 1) and lambda_ = 1, vs_t is the n-step return
bootstrapped at the window's end.

`vtrace_error_discrete_action` / `vtrace_error_continuous_action` take a
`vtrace_data` (values [T+1, B], no episode ends inside the window) and give a `vtrace_loss`.
"""
from collections import namedtuple
from typing import Optional

import torch
from torch.distributions import Categorical, Independent, Normal

vtrace_data = namedtuple('vtrace_data', ['target_output', 'behaviour_output', 'action', 'value', 'reward', 'weight'])
vtrace_loss = namedtuple('vtrace_loss', ['policy_loss', 'value_loss', 'entropy_loss'])
vtrace_returns = namedtuple('vtrace_returns', ['vs', 'pg_adv', 'rho'])


@torch.no_grad()
def vtrace(target_logp: torch.Tensor, behaviour_logp: torch.Tensor, reward: torch.Tensor, value: torch.Tensor,
           next_value: torch.Tensor, done: Optional[torch.Tensor] = None, episode_end: Optional[torch.Tensor] = None,
           gamma: float = 0.99, lambda_: float = 0.95, rho_clip_ratio: float = 1.0, c_clip_ratio: float = 1.0,
           rho_pg_clip_ratio: float = 1.0) -> vtrace_returns:
    """(vs, pg_adv, rho), each [T, B], as constants (no gradient).

    value: V(x_t); next_value: V(x'_t), the value of step t's next observation (equal to
    value[t + 1] inside an episode). done: terminal steps (no bootstrap); episode_end: steps
    after which the window continues with another episode (terminal or truncated; default done).
    """
    done = torch.zeros_like(reward) if done is None else done.to(reward.dtype)
    episode_end = done if episode_end is None else episode_end.to(reward.dtype)
    rho = torch.exp(target_logp - behaviour_logp)
    rho_bar = rho.clamp(max=rho_clip_ratio)
    c = lambda_ * rho.clamp(max=c_clip_ratio)
    discount = gamma * (1.0 - done)
    trace_discount = discount * (1.0 - episode_end) * c  # the trace stops at an episode end

    delta = rho_bar * (reward + discount * next_value - value)
    vs_minus_v = torch.zeros_like(value)
    acc = torch.zeros_like(value[0])
    for t in reversed(range(reward.shape[0])):
        acc = delta[t] + trace_discount[t] * acc
        vs_minus_v[t] = acc
    vs = value + vs_minus_v

    # the bootstrap of step t's advantage: vs of the next row when it continues the episode
    next_vs = next_value.clone()
    continues = episode_end[:-1] == 0
    next_vs[:-1] = torch.where(continues, vs[1:], next_value[:-1])
    pg_adv = rho.clamp(max=rho_pg_clip_ratio) * (reward + discount * next_vs - value)
    return vtrace_returns(vs, pg_adv, rho)


def vtrace_actor_critic_loss(target_logp: torch.Tensor, entropy: torch.Tensor, value: torch.Tensor,
                             targets: vtrace_returns, weight: Optional[torch.Tensor] = None) -> vtrace_loss:
    """policy_loss = -mean(w * logp * adv), value_loss = mean(w * (V - vs)^2), entropy_loss = mean(w * H);
    the learner minimises policy_loss + value_weight * value_loss - entropy_weight * entropy_loss."""
    weight = torch.ones_like(value) if weight is None else weight
    policy_loss = -(target_logp * targets.pg_adv * weight).mean()
    value_loss = ((value - targets.vs).pow(2) * weight).mean()
    entropy_loss = (entropy * weight).mean()
    return vtrace_loss(policy_loss, value_loss, entropy_loss)


def _vtrace_error(dist_target, dist_behaviour, data: vtrace_data, gamma: float, lambda_: float,
                  rho_clip_ratio: float, c_clip_ratio: float, rho_pg_clip_ratio: float) -> vtrace_loss:
    value, action = data.value, data.action
    target_logp = dist_target.log_prob(action)
    targets = vtrace(target_logp.detach(), dist_behaviour.log_prob(action), data.reward, value[:-1].detach(),
                     value[1:].detach(), gamma=gamma, lambda_=lambda_, rho_clip_ratio=rho_clip_ratio,
                     c_clip_ratio=c_clip_ratio, rho_pg_clip_ratio=rho_pg_clip_ratio)
    return vtrace_actor_critic_loss(target_logp, dist_target.entropy(), value[:-1], targets, data.weight)


def vtrace_error_discrete_action(data: vtrace_data, gamma: float = 0.99, lambda_: float = 0.95,
                                 rho_clip_ratio: float = 1.0, c_clip_ratio: float = 1.0,
                                 rho_pg_clip_ratio: float = 1.0) -> vtrace_loss:
    """The discrete form: target/behaviour logits [T, B, N], action [T, B], value [T+1, B]
    (the last one bootstraps), reward [T, B], weight [T, B] or None."""
    return _vtrace_error(Categorical(logits=data.target_output), Categorical(logits=data.behaviour_output), data,
                         gamma, lambda_, rho_clip_ratio, c_clip_ratio, rho_pg_clip_ratio)


def vtrace_error_continuous_action(data: vtrace_data, gamma: float = 0.99, lambda_: float = 0.95,
                                   rho_clip_ratio: float = 1.0, c_clip_ratio: float = 1.0,
                                   rho_pg_clip_ratio: float = 1.0) -> vtrace_loss:
    """As the discrete form, with target/behaviour outputs {'mu', 'sigma'} [T, B, N] and action [T, B, N]."""
    gaussian = lambda out: Independent(Normal(out['mu'], out['sigma']), 1)  # noqa: E731
    return _vtrace_error(gaussian(data.target_output), gaussian(data.behaviour_output), data, gamma, lambda_,
                         rho_clip_ratio, c_clip_ratio, rho_pg_clip_ratio)
