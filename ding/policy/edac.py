"""EDAC (An et al. 2021): offline SAC with an ensemble of `model.ensemble_num` critics whose
minimum is the pessimistic value, and a penalty (`learn.eta`) on the alignment of their
action-gradients so that a few members give the pessimism many would
(`ensemble_gradient_diversity_loss`). Trained from a dataset (`offline_data_fetcher` +
`trainer`); acting is SAC's.

`learn.with_q_entropy` (default False) decides whether the soft term alpha * log pi
enters the critic's target; the actor and temperature losses are SAC's either way.
"""
from typing import Dict, List, Optional, Tuple

import torch
from torch import nn

from ding.model.from_config import build_model
from ding.model.qac_ensemble import QACEnsemble
from ding.policy.sac import SACPolicy
from ding.rl_utils.edac import ensemble_gradient_diversity_loss
from ding.rl_utils.td import critic_loss
from ding.rl_utils.sac import alpha_loss, sac_actor_loss, soft_q_target, tanh_gaussian_sample
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import not_read, positive_int


@POLICY_REGISTRY.register('edac')
class EDACPolicy(SACPolicy):
    config = dict(
        type='edac',
        random_collect_size=10000,
        # SAC's twin_critic and action_space are not read: the ensemble replaces the twin critics
        model=dict(ensemble_num=10, actor_head_hidden_size=256, critic_head_hidden_size=256, twin_critic=not_read(),
                   action_space=not_read()),
        learn=dict(
            batch_size=256,
            learning_rate_q=3e-4,
            learning_rate_policy=3e-4,
            learning_rate_alpha=3e-4,
            alpha=1,
            auto_alpha=True,
            log_space=True,  # the temperature is learned as log(alpha)
            with_q_entropy=False,
            eta=0.1,  # weight of the ensemble-diversity penalty
            train_epoch=positive_int(30000),
        ),
        collect=dict(data_type='naive', data_path=None),
    )

    def default_model(self) -> nn.Module:
        return build_model(QACEnsemble, self._cfg.model)

    def _init_learn(self) -> None:
        if not self._cfg.learn.log_space:
            raise ValueError('EDACPolicy learns the temperature as log(alpha): learn.log_space must be True')
        if not hasattr(self._model, 'q_per_member_action'):
            raise TypeError(f'EDACPolicy needs a critic ensemble (ding.model.QACEnsemble); '
                            f'got {type(self._model).__name__}')
        super()._init_learn()
        self._eta = float(self._cfg.learn.eta)

    def _update_tensors(self, inputs: Dict[str, Optional[torch.Tensor]]) -> Dict[str, torch.Tensor]:
        """One update of the ensemble, actor and temperature; tensors only (`learn.cuda_graph` captures it)."""
        obs, next_obs = inputs['obs'], inputs['next_obs']
        action = inputs['action'].float().reshape(len(obs), -1)  # datasets may store a 1-d action as [B]
        model = self._model
        alpha = self._log_alpha.detach().exp()
        with torch.no_grad():
            next_action, next_logp = tanh_gaussian_sample(*model.actor_mu_log_sigma(next_obs))
            target_alpha = alpha if self._cfg.learn.with_q_entropy else torch.zeros_like(alpha)
            target = soft_q_target(inputs['reward'], inputs['done'], self._target_model.q_all(next_obs, next_action),
                                   next_logp, target_alpha, self._gamma, inputs['nstep'])
        q, diversity = self._ensemble_q(obs, action)
        loss_q, td_abs = critic_loss(q, target, inputs['weight'])
        stats = {}
        if diversity is not None:
            loss_q = loss_q + self._eta * diversity
            stats['diversity_loss'] = diversity
        new_action, logp = tanh_gaussian_sample(*model.actor_mu_log_sigma(obs))
        loss_pi = sac_actor_loss(model.q_all(obs, new_action, detach_weights=True), logp, alpha)
        loss_alpha = alpha_loss(self._log_alpha, -logp, self._target_entropy)
        total = self._sac_step(loss_q, loss_pi, loss_alpha)
        stats.update(total_loss=total, critic_loss=loss_q, policy_loss=loss_pi, alpha_loss=loss_alpha, alpha=alpha,
                     q_value=q.mean(), target_q_value=target.mean(), entropy=-logp.mean(), td_abs=td_abs)
        return stats

    def _ensemble_q(self, obs: torch.Tensor, action: torch.Tensor) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
        """Every critic's Q(s, a) [N, B], and the diversity penalty when `eta` > 0 (else None).
        One ensemble pass serves both: each member sees the data action through its own copy,
        whose gradient the penalty needs."""
        model = self._model
        if self._eta <= 0:
            return model.q_all(obs, action), None
        per_member = action.unsqueeze(0).expand(model.ensemble_num, -1, -1).clone().requires_grad_(True)
        q = model.q_per_member_action(obs, per_member)
        return q, ensemble_gradient_diversity_loss(q, per_member)

    def _monitor_vars_learn(self) -> List[str]:
        return super()._monitor_vars_learn() + ['diversity_loss']
