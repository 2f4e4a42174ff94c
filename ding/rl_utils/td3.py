"""TD3 and DDPG math: target policy smoothing, the (clipped double) Q target and the
deterministic policy-gradient actor loss."""
import torch

from ding.rl_utils.td import td_target


def smoothed_target_action(target_action: torch.Tensor, noise_sigma: float, noise_min: float, noise_max: float,
                           noise: torch.Tensor = None) -> torch.Tensor:
    """a' = clip(mu'(s') + clip(eps, noise_min, noise_max), -1, 1), eps ~ N(0, sigma^2).

    `noise` may be given (tests); otherwise it is drawn."""
    if noise is None:
        noise = torch.randn_like(target_action) * noise_sigma
    return (target_action + noise.clamp(noise_min, noise_max)).clamp(-1.0, 1.0)


def td3_q_target(reward: torch.Tensor, done: torch.Tensor, next_q_all: torch.Tensor, gamma: float,
                 nstep: torch.Tensor = None) -> torch.Tensor:
    """y = r + gamma * (1 - done) * min_k Q'_k(s', a'). With one critic (DDPG) the min is Q'."""
    return td_target(reward, done, next_q_all.min(0).values, gamma, nstep).detach()


def deterministic_actor_loss(q_first: torch.Tensor) -> torch.Tensor:
    """L_mu = -mean_b Q_1(s, mu(s)) (the critic's weights held fixed by the caller)."""
    return -q_first.mean()
