"""`PGPolicy`: REINFORCE on whole episodes.

`montecarlo_return_estimator(policy)` writes each step's discounted return-to-go as `return`;
one `learn_mode.forward(batch)` is one gradient step on all of it. Normalising the returns
over the batch (`return_norm`) subtracts a constant baseline, which cuts the variance a lot.
"""
from typing import Dict

import torch

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.onpolicy_base import OnPolicyBase, logp_and_entropy, require_columns
from ding.rl_utils.adv_norm import normalize_advantage
from ding.rl_utils.pg import pg_loss
from ding.utils.registry import POLICY_REGISTRY


@POLICY_REGISTRY.register('pg')
class PGPolicy(OnPolicyBase):
    config = dict(
        type='pg',
        learn=dict(learning_rate=1e-3, entropy_weight=0.01, return_norm=True),
        collect=dict(n_episode=8),
    )
    has_critic = False

    def default_model(self) -> torch.nn.Module:
        from ding.model.pg import PG
        return build_model(PG, self._cfg.model)

    def _forward_learn(self, data: Batch) -> Dict[str, float]:
        require_columns(data, ('obs', 'action', 'return'), type(self).__name__, 'montecarlo_return_estimator')
        cfg = self._cfg.learn
        logit = self._model(data['obs'], mode='compute_actor')['logit']
        logp, entropy = logp_and_entropy(logit, self._learn_action(data))
        ret = normalize_advantage(data['return']) if cfg.return_norm else data['return']
        losses = pg_loss(logp, ret, entropy, entropy_weight=self._entropy_weight())
        grad_norm = self._optimizer_step(losses['total_loss'])
        return self._scalars(dict(losses, grad_norm=grad_norm))
