"""`A2CPolicy`: synchronous advantage actor-critic.

Same data path as PPO (`gae_estimator` adds `adv` and `return`), but the data is used once:
one pass over the batch in shuffled minibatches of `batch_size` (the whole batch when it is
larger), a plain policy-gradient step on each. Returns one dict of scalars per step.
"""
from typing import Dict, List

import torch

from ding.data.batch import Batch
from ding.policy.onpolicy_base import OnPolicyBase, logp_and_entropy, require_columns
from ding.rl_utils.a2c import a2c_loss
from ding.rl_utils.adv_norm import normalize_advantage
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import prob

TRAIN_COLUMNS = ('obs', 'action', 'adv', 'return')


@POLICY_REGISTRY.register('a2c')
class A2CPolicy(OnPolicyBase):
    config = dict(
        type='a2c',
        learn=dict(
            batch_size=256,
            learning_rate=1e-3,
            value_weight=0.5,
            entropy_weight=0.01,
            adv_norm=True,
        ),
        collect=dict(gae_lambda=prob(0.95)),
    )

    def _forward_learn(self, data: Batch) -> List[Dict[str, float]]:
        require_columns(data, TRAIN_COLUMNS, type(self).__name__, 'gae_estimator')
        n = len(data)
        batch_size = min(int(self._cfg.learn.batch_size), n)
        order = torch.randperm(n, device=self._device)
        return [self._update(data[order[s:s + batch_size]]) for s in range(0, n - batch_size + 1, batch_size)]

    def _update(self, mb: Batch) -> Dict[str, float]:
        cfg = self._cfg.learn
        out = self._model(mb['obs'], mode='compute_actor_critic')
        logp, entropy = logp_and_entropy(out['logit'], self._learn_action(mb))
        adv = normalize_advantage(mb['adv']) if cfg.adv_norm else mb['adv']
        losses = a2c_loss(logp, adv, out['value'], mb['return'], entropy, value_weight=cfg.value_weight,
                          entropy_weight=self._entropy_weight())
        grad_norm = self._optimizer_step(losses['total_loss'])
        return self._scalars(dict(losses, grad_norm=grad_norm))

    def _monitor_vars_learn(self):
        return super()._monitor_vars_learn() + ['value_loss']
