"""D4PG (Barth-Maron et al. 2018): DDPG with a distributional critic (C51 over a fixed
support), n-step returns and prioritized replay. Acting is DDPG's (mu(s) plus Gaussian noise
when collecting); only the learner differs.

n-step: put `nstep_reward_enhancer(cfg)` before `data_pusher`;
the batch then carries [B, n] rewards and the window's last next_obs / done.
"""
from typing import Any, Dict, List

import torch
from torch import nn

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.model.qac_dist import QACDIST
from ding.policy.ddpg import DDPGPolicy
from ding.rl_utils.d4pg import d4pg_actor_loss, d4pg_critic_loss
from ding.config.schema import not_read
from ding.utils.registry import POLICY_REGISTRY
from ding.policy.policy import as_floats


@POLICY_REGISTRY.register('d4pg')
class D4PGPolicy(DDPGPolicy):
    """D4PG's keys and defaults: `model.{v_min, v_max, n_atom}` (-10, 10, 51), `nstep` 3,
    `priority` / `priority_IS_weight` True, `learn.{learning_rate_actor, learning_rate_critic,
    actor_update_freq, ignore_done, target_theta, discount_factor}`, `collect.noise_sigma`."""
    config = dict(
        type='d4pg',
        priority=True,
        priority_IS_weight=True,
        random_collect_size=25000,
        nstep=3,
        action_space='continuous',
        reward_batch_norm=False,
        # DDPG's twin_critic is not read: the distributional critic is a single network
        model=dict(v_min=-10, v_max=10, n_atom=51, twin_critic=not_read()),
        learn=dict(update_per_collect=1, batch_size=256, noise=False, ignore_done=False),
        collect=dict(unroll_len=1, noise_sigma=0.1),
        eval=dict(evaluator=dict(eval_freq=1000)),
    )
    required_model_methods = ('compute_actor', 'critic_dist', 'actor_params', 'critic_params')

    def default_model(self) -> nn.Module:
        return build_model(QACDIST, self._cfg.model)

    def _init_learn(self) -> None:
        if self._cfg.learn.noise:
            raise ValueError('D4PGPolicy: learn.noise (target policy smoothing) is not part of D4PG; set it False')
        super()._init_learn()
        self._support = self._model.support

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        obs, action, reward, next_obs, done, nstep, weight = self._columns(data)
        action = action.float().reshape(len(obs), -1)
        reward = reward.float()
        if self._cfg.reward_batch_norm:
            reward = (reward - reward.mean()) / (reward.std() + 1e-8)
        with torch.no_grad():
            next_action = self._target_model.compute_actor(next_obs)['action']
            next_dist = self._target_model.critic_dist(next_obs, next_action)
        critic = d4pg_critic_loss(self._model.critic_dist(obs, action), next_dist, reward, done, self._gamma,
                                  self._support, nstep, weight)
        stats = {'critic_loss': critic.loss, 'q_value': critic.q_sa.mean(), 'target_q_value': critic.target_q.mean()}
        self._critic_and_actor_step(critic.loss, obs, action, stats)
        stats['action'] = action.mean()
        return {**as_floats(stats), 'cur_lr_actor': self._lr_scaled(self._cfg.learn.learning_rate_actor),
                'cur_lr_critic': self._lr_scaled(self._cfg.learn.learning_rate_critic),
                **self._priority(critic.td_error_per_sample)}

    def _actor_loss(self, obs: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
        new_action = self._model.compute_actor(obs)['action']
        return d4pg_actor_loss(self._model.critic_dist(obs, new_action, detach_weights=True), self._support)

    def _monitor_vars_learn(self) -> List[str]:
        return super()._monitor_vars_learn() + ['action']
