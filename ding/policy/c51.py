"""`C51Policy`: DQN with a categorical return distribution (Bellemare et al. 2017).

Everything but the loss is `DQNPolicy`'s (eps-greedy on the expected Q, target net, n-step,
priorities). The loss is the cross-entropy against the projected target distribution
(`ding/rl_utils/distributional.py`); with `priority=True` that per-sample cross-entropy is
the new priority. The support comes from the model (`model.support`), so `model.v_min`,
`model.v_max` and `model.n_atom` are set in one place: the model config.
"""
from typing import Optional

import torch

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.dqn import DQNPolicy, TDLoss
from ding.rl_utils.distributional import dist_nstep_td_error
from ding.utils.registry import POLICY_REGISTRY


@POLICY_REGISTRY.register('c51')
class C51Policy(DQNPolicy):
    """C51's config keys and defaults (the rest inherited from DQNPolicy)."""
    graph_safe_update = True  # Rainbow's too; replay checked against eager updates on an H200 (2026-11-28)
    # model.v_min / v_max / n_atom default to -10 / 10 / 51 in C51DQN's constructor; they are not
    # listed here, as a non-empty model section would close it to the other constructor arguments
    config = dict(type='c51')

    def default_model(self) -> torch.nn.Module:
        from ding.model.c51 import C51DQN
        return build_model(C51DQN, self._cfg.model)

    def _td_loss(self, data: Batch, reward: torch.Tensor, done: torch.Tensor,
                 weight: Optional[torch.Tensor]) -> TDLoss:
        dist = self._model(data.obs)['distribution']
        with torch.no_grad():
            target = self._target_model(data.next_obs)
            next_action = self._next_action(data.next_obs, target['logit'])
        td = dist_nstep_td_error(dist, target['distribution'], data.action, next_action, reward, done,
                                 self._cfg.discount_factor, self._model.support, nstep=data.get('nstep'),
                                 weight=weight)
        return TDLoss(td.loss, td.td_error_per_sample,
                      {'q_value': td.q_sa.mean(), 'target_q_value': td.target_q.mean()})
