"""Implicit Q-learning (Kostrikov et al. 2021): never queries Q on actions outside the dataset.
V(s) is an upper expectile of the target Q(s, a_data); Q(s, a) regresses onto r + gamma V(s');
the actor is advantage-weighted regression onto the dataset's actions. All three losses take
one backward pass and one fused optimizer (each loss reaches only its own network)."""
from typing import Any, Dict, List

import torch
from torch import nn

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.qac_base import QACPolicyBase
from ding.rl_utils.offline import awr_actor_loss, expectile_loss, tanh_gaussian_log_prob
from ding.rl_utils.td import critic_loss, td_target
from ding.rl_utils.sac import tanh_gaussian_sample
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import positive, positive_int
from ding.policy.policy import as_floats


@POLICY_REGISTRY.register('iql')
class IQLPolicy(QACPolicyBase):
    """Keys: `learn.expectile` (tau, 0.7), `learn.beta` (inverse temperature of the advantage
    weights, 3.0), `learn.max_weight` (their clip, 100), the learning rates `learning_rate_q`,
    `learning_rate_policy`, `learning_rate_v`. Collect: a tanh-Gaussian sample; eval: tanh(mu)."""
    config = dict(
        type='iql',
        model=dict(obs_shape=None, action_shape=None, action_space='reparameterization', twin_critic=True,
                   actor_head_hidden_size=256, actor_head_layer_num=1, critic_head_hidden_size=256,
                   critic_head_layer_num=1),
        learn=dict(
            batch_size=256,
            learning_rate_q=positive(3e-4),
            learning_rate_policy=positive(3e-4),
            learning_rate_v=positive(3e-4),
            expectile=0.7,
            beta=3.0,
            max_weight=100.0,
            train_epoch=positive_int(30000),
        ),
        collect=dict(data_type='naive', data_path=None),
    )
    required_model_methods = ('actor_mu_log_sigma', 'q_all', 'compute_value', 'actor_params', 'critic_params',
                              'value_params')

    def default_model(self) -> nn.Module:
        from ding.model.iql import IQLModel
        return build_model(IQLModel, self._cfg.model)

    def _init_learn(self) -> None:
        self._check_model()
        learn = self._cfg.learn
        if not 0.0 < learn.expectile < 1.0:
            raise ValueError(f'learn.expectile must be in (0, 1), got {learn.expectile}')
        self._setup_learner([
            {'params': self._model.critic_params(), 'lr': learn.learning_rate_q},
            {'params': self._model.actor_params(), 'lr': learn.learning_rate_policy},
            {'params': self._model.value_params(), 'lr': learn.learning_rate_v},
        ])
        self._target_critic = self._target_model.critic_params()
        self._online_critic = self._model.critic_params()

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        obs, action, reward, next_obs, done, nstep, weight = self._columns(data)
        action = action.float().reshape(len(obs), -1)
        model, learn = self._model, self._cfg.learn
        with torch.no_grad():
            q_target = self._target_model.q_all(obs, action).min(0).values
            target = td_target(reward, done, model.compute_value(next_obs), self._gamma, nstep)
        v = model.compute_value(obs)
        loss_v = expectile_loss(q_target - v, float(learn.expectile))
        q = model.q_all(obs, action)
        loss_q, td_abs = critic_loss(q, target, weight)
        logp = tanh_gaussian_log_prob(*model.actor_mu_log_sigma(obs), action)
        advantage = q_target - v.detach()
        loss_pi = awr_actor_loss(logp, advantage, float(learn.beta), float(learn.max_weight))
        total = loss_v + loss_q + loss_pi
        self._apply_gradients(total)
        self._update_target(self._online_critic, self._target_critic)
        self._learn_iter += 1
        stats = as_floats({'total_loss': total, 'value_loss': loss_v, 'critic_loss': loss_q, 'policy_loss': loss_pi,
                           'q_value': q[0].mean(), 'v_value': v.mean(), 'advantage': advantage.mean()})
        return {**stats, **self._priority(td_abs)}

    def _monitor_vars_learn(self) -> List[str]:
        return ['total_loss', 'value_loss', 'critic_loss', 'policy_loss', 'q_value', 'v_value', 'advantage']

    def _forward_collect(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        action, _ = tanh_gaussian_sample(*self._collect_model.actor_mu_log_sigma(obs))
        return {'action': action}

    def _forward_eval(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        mu, _ = self._eval_model.actor_mu_log_sigma(obs)
        return {'action': torch.tanh(mu)}
