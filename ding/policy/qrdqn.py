"""`QRDQNPolicy`: DQN with quantile regression on `num_quantiles` fixed fractions of the
return distribution (Dabney et al. 2018). Everything but the loss is `DQNPolicy`'s; the loss
is the quantile Huber loss (`ding/rl_utils/quantile.py`, threshold `learn.kappa`), whose
per-sample value is the priority with `priority=True`.
"""
from typing import Optional

import torch

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.dqn import DQNPolicy, TDLoss
from ding.rl_utils.quantile import qrdqn_nstep_td_error
from ding.utils.registry import POLICY_REGISTRY


@POLICY_REGISTRY.register('qrdqn')
class QRDQNPolicy(DQNPolicy):
    """QR-DQN's config keys and defaults (the rest inherited from DQNPolicy)."""
    config = dict(
        type='qrdqn',
        learn=dict(kappa=1.0),  # Huber threshold of the quantile loss
    )

    def default_model(self) -> torch.nn.Module:
        from ding.model.qrdqn import QRDQN
        return build_model(QRDQN, self._cfg.model)

    def _td_loss(self, data: Batch, reward: torch.Tensor, done: torch.Tensor,
                 weight: Optional[torch.Tensor]) -> TDLoss:
        out = self._model(data.obs)
        with torch.no_grad():
            target = self._target_model(data.next_obs)
            next_action = self._next_action(data.next_obs, target['logit'])
        td = qrdqn_nstep_td_error(out['q'], target['q'], data.action, next_action, reward, done,
                                  self._cfg.discount_factor, out['tau'][0, :, 0], kappa=self._cfg.learn.kappa,
                                  nstep=data.get('nstep'), weight=weight)
        return TDLoss(td.loss, td.td_error_per_sample,
                      {'q_value': td.q_sa.mean(), 'target_q_value': td.target_q.mean()})
