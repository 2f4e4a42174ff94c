"""`DiscreteCQLPolicy`: conservative Q-learning for discrete actions, built on QR-DQN.
The loss is the quantile TD loss plus `learn.min_q_weight` x (logsumexp_a Q(s, a) - Q(s, a_data)),
Q being the mean over quantiles. Acting is QR-DQN's (greedy on the mean)."""
from typing import Optional

import torch

from ding.data.batch import Batch
from ding.policy.dqn import TDLoss
from ding.policy.qrdqn import QRDQNPolicy
from ding.rl_utils.offline import discrete_cql_penalty
from ding.rl_utils.quantile import qrdqn_nstep_td_error
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import positive_int


@POLICY_REGISTRY.register('discrete_cql')
class DiscreteCQLPolicy(QRDQNPolicy):
    graph_safe_update = True  # replay checked against eager updates on an H200 (tests/policy/test_cuda_graph.py)
    config = dict(
        type='discrete_cql',
        discount_factor=0.97,
        nstep=1,
        learn=dict(update_per_collect=1, batch_size=64, learning_rate=0.001, target_update_freq=100,
                   min_q_weight=1.0, train_epoch=positive_int(3000)),
        collect=dict(data_type='naive', data_path=None),
        eval=dict(evaluator=dict(eval_freq=1000)),
    )

    def _td_loss(self, data: Batch, reward: torch.Tensor, done: torch.Tensor,
                 weight: Optional[torch.Tensor]) -> TDLoss:
        out = self._model(data.obs)
        with torch.no_grad():
            target = self._target_model(data.next_obs)
            next_action = self._next_action(data.next_obs, target['logit'])
        action = data.action.long().reshape(-1)
        td = qrdqn_nstep_td_error(out['q'], target['q'], action, next_action, reward, done,
                                  self._cfg.discount_factor, out['tau'][0, :, 0], kappa=self._cfg.learn.kappa,
                                  nstep=data.get('nstep'), weight=weight)
        penalty = discrete_cql_penalty(out['q'].mean(-1), action)
        loss = td.loss + float(self._cfg.learn.min_q_weight) * penalty
        return TDLoss(loss, td.td_error_per_sample,
                      {'q_value': td.q_sa.mean().detach(), 'target_q_value': td.target_q.mean().detach(),
                       'td_loss': td.loss.detach(), 'cql_penalty': penalty.detach()})
