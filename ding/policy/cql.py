"""Conservative Q-learning (Kumar et al. 2020) for continuous actions: SAC's update on a fixed
dataset, plus a penalty that pushes Q down on actions the dataset does not hold (uniform and
current-policy samples, importance-weighted) and up on the dataset's own actions.
`DiscreteCQLPolicy` is in discrete_cql.py."""
from typing import Any, Dict, List

import torch

from ding.data.batch import Batch
from ding.policy.sac import SACPolicy
from ding.rl_utils.offline import cql_penalty
from ding.rl_utils.td import critic_loss
from ding.rl_utils.sac import alpha_loss, sac_actor_loss, soft_q_target, tanh_gaussian_sample
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import positive_int
from ding.policy.policy import as_floats


@POLICY_REGISTRY.register('cql')
class CQLPolicy(SACPolicy):
    """CQL's keys: `learn.min_q_weight` (the penalty's weight), `learn.num_actions`
    (uniform and policy samples per state), `learn.with_lagrange` / `learn.lagrange_thresh`
    (tune the weight so the penalty stays near the threshold), `learn.with_q_entropy` (the
    entropy bonus in the TD target; off by default)."""
    graph_safe_update = False  # its own _forward_learn (the CQL penalty), not `_update_tensors`
    config = dict(
        type='cql',
        random_collect_size=10000,
        model=dict(actor_head_hidden_size=256, critic_head_hidden_size=256),
        learn=dict(
            update_per_collect=1,
            batch_size=256,
            train_epoch=positive_int(30000),  # serial_offline's budget: epochs over the dataset
            log_space=True,  # the temperature is learned as log(alpha)
            num_actions=10,
            with_lagrange=False,
            lagrange_thresh=-1.0,
            min_q_weight=1.0,
            with_q_entropy=False,
        ),
        collect=dict(data_type='naive', data_path=None),
        eval=dict(evaluator=dict(eval_freq=5000)),
    )

    def _init_learn(self) -> None:
        if not self._cfg.learn.log_space:
            raise ValueError('CQLPolicy learns log(alpha): learn.log_space=False is not supported')
        super()._init_learn()
        learn = self._cfg.learn
        self._num_actions = int(learn.num_actions)
        self._min_q_weight = float(learn.min_q_weight)
        self._lagrange = bool(learn.with_lagrange) and learn.lagrange_thresh > 0
        self._log_alpha_prime = torch.nn.Parameter(torch.zeros((), device=self._device),
                                                   requires_grad=self._lagrange)
        if self._lagrange:
            self._optimizer.add_param_group({'params': [self._log_alpha_prime], 'lr': learn.learning_rate_q})

    @torch.no_grad()
    def _penalty_actions(self, obs: torch.Tensor, next_obs: torch.Tensor):
        """M uniform actions, M policy actions at s and M at s' (each state repeated M times)."""
        m, model = self._num_actions, self._model
        cur, cur_logp = tanh_gaussian_sample(*model.actor_mu_log_sigma(obs.repeat_interleave(m, 0)))
        nxt, nxt_logp = tanh_gaussian_sample(*model.actor_mu_log_sigma(next_obs.repeat_interleave(m, 0)))
        uniform = torch.empty_like(cur).uniform_(-1.0, 1.0)
        logp = torch.cat([cur_logp.view(-1, m), nxt_logp.view(-1, m)], dim=1)
        return torch.cat([uniform, cur, nxt]), logp

    def _conservative_loss(self, obs: torch.Tensor, next_obs: torch.Tensor, q: torch.Tensor):
        """(weighted penalty for the critics, Lagrange multiplier loss, raw penalty)."""
        batch, m = len(obs), self._num_actions
        actions, logp = self._penalty_actions(obs, next_obs)
        q_sampled = self._model.q_all(obs.repeat_interleave(m, 0).repeat(3, 1), actions).view(len(q), 3, batch, m)
        q_policy = torch.cat([q_sampled[:, 1], q_sampled[:, 2]], dim=-1)
        penalty = cql_penalty(q, q_sampled[:, 0], q_policy, logp, self._model.action_dim) * self._min_q_weight
        if not self._lagrange:
            return penalty, torch.zeros((), device=q.device), penalty
        # the multiplier grows while the penalty exceeds the threshold (one per critic)
        gap = penalty - len(q) * float(self._cfg.learn.lagrange_thresh)
        alpha_prime = self._log_alpha_prime.exp().clamp(0.0, 1e6)
        return alpha_prime.detach() * gap, -0.5 * alpha_prime * gap.detach(), penalty

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        obs, action, reward, next_obs, done, nstep, weight = self._columns(data)
        model = self._model
        alpha = self._log_alpha.detach().exp()
        with torch.no_grad():
            next_action, next_logp = tanh_gaussian_sample(*model.actor_mu_log_sigma(next_obs))
            entropy_alpha = alpha if self._cfg.learn.with_q_entropy else torch.zeros_like(alpha)
            target = soft_q_target(reward, done, self._target_model.q_all(next_obs, next_action), next_logp,
                                   entropy_alpha, self._gamma, nstep)
        q = model.q_all(obs, action)
        loss_td, td_abs = critic_loss(q, target, weight)
        loss_cql, loss_alpha_prime, penalty = self._conservative_loss(obs, next_obs, q)
        new_action, logp = tanh_gaussian_sample(*model.actor_mu_log_sigma(obs))
        loss_pi = sac_actor_loss(model.q_all(obs, new_action, detach_weights=True), logp, alpha)
        loss_alpha = alpha_loss(self._log_alpha, -logp, self._target_entropy)
        total = self._sac_update(loss_td + loss_cql + loss_alpha_prime, loss_pi, loss_alpha)
        stats = as_floats({
            'total_loss': total,
            'critic_loss': loss_td + loss_cql,
            'td_loss': loss_td,
            'cql_penalty': penalty,
            'policy_loss': loss_pi,
            'alpha_loss': loss_alpha,
            'alpha': alpha,
            'alpha_prime': self._log_alpha_prime.detach().exp(),
            'q_value': q[0].mean(),
            'target_q_value': target.mean(),
            'td_error': td_abs.mean(),
        })
        return {**stats, 'cur_lr_q': self._lr_scaled(self._cfg.learn.learning_rate_q),
                'cur_lr_p': self._lr_scaled(self._cfg.learn.learning_rate_policy), **self._priority(td_abs)}

    def _monitor_vars_learn(self) -> List[str]:
        return super()._monitor_vars_learn() + ['td_loss', 'cql_penalty', 'alpha_prime', 'td_error']

    def _state_dict_learn(self) -> Dict[str, Any]:
        return {**super()._state_dict_learn(), 'log_alpha_prime': self._log_alpha_prime.detach().clone()}

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        super()._load_state_dict_learn(state)
        if 'log_alpha_prime' in state and hasattr(self, '_log_alpha_prime'):
            with torch.no_grad():
                self._log_alpha_prime.copy_(state['log_alpha_prime'])
