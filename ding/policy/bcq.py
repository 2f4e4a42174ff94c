"""Batch-constrained Q-learning (Fujimoto et al. 2019): act only near actions the dataset's
behaviour would take. A VAE models those actions; the actor perturbs a decoded action by at
most `model.phi`; the critics bootstrap from the best of 10 such actions at s', valued by a
soft clipped double Q (`learn.lmbda`). VAE, critic and actor losses take one backward pass."""
from typing import Any, Dict, List

import torch
from torch import nn

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.qac_base import QACPolicyBase
from ding.rl_utils.offline import bcq_soft_clipped_value, vae_loss
from ding.rl_utils.td import critic_loss, td_target
from ding.rl_utils.td3 import deterministic_actor_loss
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import positive, positive_int
from ding.policy.policy import as_floats

N_SAMPLES = 10  # decoded actions per state, for targets and acting (as the paper)


@POLICY_REGISTRY.register('bcq')
class BCQPolicy(QACPolicyBase):
    config = dict(
        type='bcq',
        random_collect_size=10000,
        model=dict(obs_shape=None, action_shape=None, actor_head_hidden_size=[400, 300],
                   critic_head_hidden_size=[400, 300], vae_hidden_dims=[750, 750], phi=0.05),
        learn=dict(
            batch_size=100,
            learning_rate_q=positive(3e-4),
            learning_rate_policy=positive(3e-4),
            learning_rate_vae=positive(3e-4),
            lmbda=0.75,
            train_epoch=positive_int(30000),
        ),
        collect=dict(data_type='naive', data_path=None),
        eval=dict(evaluator=dict(eval_freq=5000)),
    )
    required_model_methods = ('perturb', 'decode', 'encode', 'q_all', 'actor_params', 'critic_params', 'vae_params')

    def default_model(self) -> nn.Module:
        from ding.model.bcq import BCQ
        return build_model(BCQ, self._cfg.model)

    def _init_learn(self) -> None:
        self._check_model()
        learn = self._cfg.learn
        self._setup_learner([
            {'params': self._model.critic_params(), 'lr': learn.learning_rate_q},
            {'params': self._model.actor_params(), 'lr': learn.learning_rate_policy},
            {'params': self._model.vae_params(), 'lr': learn.learning_rate_vae},
        ])
        self._target_params = self._target_model.critic_params() + self._target_model.actor_params()
        self._online_params = self._model.critic_params() + self._model.actor_params()

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        obs, action, reward, next_obs, done, nstep, weight = self._columns(data)
        action = action.float().reshape(len(obs), -1)
        model = self._model
        mu, log_std = model.encode(obs, action)
        recons = model.decode(obs, mu + log_std.exp() * torch.randn_like(mu))
        loss_vae = vae_loss(recons, action, mu, log_std)
        with torch.no_grad():
            rep = next_obs.flatten(1).repeat_interleave(N_SAMPLES, 0)
            next_action = self._target_model.perturb(rep, model.decode(rep))
            next_q = self._target_model.q_all(rep, next_action).view(2, len(obs), N_SAMPLES)
            target = td_target(reward, done, bcq_soft_clipped_value(next_q, float(self._cfg.learn.lmbda)),
                               self._gamma, nstep)
        q = model.q_all(obs, action)
        loss_q, td_abs = critic_loss(q, target, weight)
        perturbed = model.perturb(obs, model.decode(obs).detach())
        loss_actor = deterministic_actor_loss(model.q_all(obs, perturbed, detach_weights=True)[0])
        total = loss_vae + loss_q + loss_actor
        self._apply_gradients(total)
        self._update_target(self._online_params, self._target_params)
        self._learn_iter += 1
        stats = as_floats({'total_loss': total, 'vae_loss': loss_vae, 'critic_loss': loss_q, 'actor_loss': loss_actor,
                           'q_value': q[0].mean(), 'target_q_value': target.mean()})
        return {**stats, **self._priority(td_abs)}

    def _monitor_vars_learn(self) -> List[str]:
        return ['total_loss', 'vae_loss', 'critic_loss', 'actor_loss', 'q_value', 'target_q_value']

    def _forward_collect(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        return self._collect_model.compute_eval(obs, N_SAMPLES)

    def _forward_eval(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        return self._eval_model.compute_eval(obs, N_SAMPLES)
