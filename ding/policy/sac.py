"""Soft actor-critic (Haarnoja et al. 2018) with automatic entropy tuning, for continuous
actions in [-1, 1] (a tanh-squashed Gaussian actor; the env scales them to its bounds)."""
import functools
from typing import Any, Callable, Dict, List, Optional

import torch
from torch import nn

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.model.qac import ContinuousQAC
from ding.policy.qac_worker_actors import TanhGaussianActor
from ding.policy.policy import as_floats
from ding.policy.sac_base import SACPolicyBase
from ding.policy.worker_actor import model_copier
from ding.rl_utils.td import critic_loss
from ding.rl_utils.sac import alpha_loss, sac_actor_loss, soft_q_target, tanh_gaussian_sample
from ding.config.schema import head_width
from ding.utils.registry import POLICY_REGISTRY


@POLICY_REGISTRY.register('sac')
class SACPolicy(SACPolicyBase):
    """learn: one update of twin soft-Q critics, actor and temperature from a replay batch.
    collect: a ~ tanh(N(mu, sigma)). eval: a = tanh(mu)."""
    graph_safe_update = True
    config = dict(
        type='sac',
        random_collect_size=10000,
        model=dict(obs_shape=None, action_shape=None, action_space='reparameterization', twin_critic=True,
                   actor_head_hidden_size=head_width(64), actor_head_layer_num=1,
                   critic_head_hidden_size=head_width(64), critic_head_layer_num=1),
        learn=dict(
            batch_size=256,
            target_entropy=None,  # None: -action_dim
            init_w=3e-3,  # the actor's output layer starts in U(-init_w, init_w): near-zero mean actions
        ),
    )

    def default_model(self) -> nn.Module:
        return build_model(ContinuousQAC, self._cfg.model)

    def _init_learn(self) -> None:
        self._check_model()
        if getattr(self._model, 'action_space', 'reparameterization') != 'reparameterization':
            raise ValueError("SACPolicy needs a Gaussian actor: set policy.model.action_space='reparameterization'")
        learn = self._cfg.learn
        with torch.no_grad():
            for p in self._model.actor_out.parameters():
                p.uniform_(-learn.init_w, learn.init_w)
        self._setup_sac_learner(default_target_entropy=-self._model.action_dim)

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        """`_update_tensors` (scalar tensors, plus `td_abs` [B] for priorities), run eagerly or as a
        CUDA graph, then the statistics read with one device sync."""
        inputs = self._learn_inputs(data)
        stats = dict(self._update_tensors(inputs) if self._graphed_update is None else self._graphed_update(inputs))
        self._learn_iter += 1
        td_abs = stats.pop('td_abs')
        return {**as_floats(stats), 'cur_lr_q': self._lr_scaled(self._cfg.learn.learning_rate_q),
                'cur_lr_p': self._lr_scaled(self._cfg.learn.learning_rate_policy), **self._priority(td_abs)}

    def _update_tensors(self, inputs: Dict[str, Optional[torch.Tensor]]) -> Dict[str, torch.Tensor]:
        """One update of critics, actor and temperature; tensors only (`learn.cuda_graph` captures it)."""
        obs, action, next_obs = inputs['obs'], inputs['action'], inputs['next_obs']
        model = self._model
        alpha = self._log_alpha.detach().exp()
        with torch.no_grad():
            next_action, next_logp = tanh_gaussian_sample(*model.actor_mu_log_sigma(next_obs))
            target = soft_q_target(inputs['reward'], inputs['done'], self._target_model.q_all(next_obs, next_action),
                                   next_logp, alpha, self._gamma, inputs['nstep'])
        q = model.q_all(obs, action)
        loss_q, td_abs = critic_loss(q, target, inputs['weight'])
        new_action, logp = tanh_gaussian_sample(*model.actor_mu_log_sigma(obs))
        loss_pi = sac_actor_loss(model.q_all(obs, new_action, detach_weights=True), logp, alpha)
        loss_alpha = alpha_loss(self._log_alpha, -logp, self._target_entropy)
        total = self._sac_step(loss_q, loss_pi, loss_alpha)
        return dict(total_loss=total, critic_loss=loss_q, policy_loss=loss_pi, alpha_loss=loss_alpha, alpha=alpha,
                    q_value=q[0].mean(), target_q_value=target.mean(), entropy=-logp.mean(), td_abs=td_abs)

    def _monitor_vars_learn(self) -> List[str]:
        return ['cur_lr_q', 'cur_lr_p', 'total_loss', 'critic_loss', 'policy_loss', 'alpha_loss', 'alpha',
                'q_value', 'target_q_value', 'entropy']

    def _forward_collect(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        action, _ = tanh_gaussian_sample(*self._collect_model.actor_mu_log_sigma(obs))
        return {'action': action}

    def _worker_actor_fn(self) -> Callable[[], Any]:
        """The collect forward (a tanh-squashed Gaussian sample) inside env workers."""
        return functools.partial(TanhGaussianActor, model_copier(self._collect_model))

    def _forward_eval(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        mu, _ = self._eval_model.actor_mu_log_sigma(obs)
        return {'action': torch.tanh(mu)}
