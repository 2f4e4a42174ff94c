"""`IQNPolicy`: DQN with implicit quantile networks (Dabney et al. 2018). The model samples
its quantile fractions at each forward; the loss is the quantile Huber loss between the
online quantiles at fractions tau and the target quantiles at independent fractions tau'
(`ding/rl_utils/quantile.py`, threshold `learn.kappa`). Acting is greedy (eps-greedy in
collection) on the mean of the sampled quantiles, as `DQNPolicy`.
"""
from typing import Optional

import torch

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.dqn import DQNPolicy, TDLoss
from ding.rl_utils.quantile import iqn_nstep_td_error
from ding.utils.registry import POLICY_REGISTRY


@POLICY_REGISTRY.register('iqn')
class IQNPolicy(DQNPolicy):
    """IQN's config keys and defaults (the rest inherited from DQNPolicy)."""
    config = dict(
        type='iqn',
        learn=dict(kappa=1.0),  # Huber threshold of the quantile loss
    )

    def default_model(self) -> torch.nn.Module:
        from ding.model.iqn import IQN
        return build_model(IQN, self._cfg.model)

    def _td_loss(self, data: Batch, reward: torch.Tensor, done: torch.Tensor,
                 weight: Optional[torch.Tensor]) -> TDLoss:
        out = self._model(data.obs)
        batch = out['logit'].shape[0]
        # the model's layout is quantile-major ([N, B, A], fractions [N * B, 1]); the loss is batch-major
        q = out['q'].transpose(0, 1)
        tau = out['quantiles'].view(-1, batch).t()
        with torch.no_grad():
            target = self._target_model(data.next_obs)
            next_action = self._next_action(data.next_obs, target['logit'])
        td = iqn_nstep_td_error(q, target['q'].transpose(0, 1), data.action, next_action, reward, done,
                                self._cfg.discount_factor, tau, kappa=self._cfg.learn.kappa,
                                nstep=data.get('nstep'), weight=weight)
        return TDLoss(td.loss, td.td_error_per_sample,
                      {'q_value': td.q_sa.mean(), 'target_q_value': td.target_q.mean()})
