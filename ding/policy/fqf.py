"""`FQFPolicy` (Yang et al. 2019): IQN's quantile Huber loss at fractions proposed by the
model's fraction network, plus the fraction loss that moves those fractions to minimise the
1-Wasserstein error (`ding/rl_utils/quantile.py`), minus `learn.ent_coef` times the entropy of
the fraction sizes.

The two losses train disjoint parameters (see `ding/model/fqf.py`), so one backward of their
sum and one Adam with two parameter groups (`learning_rate_fraction` for the fraction
network, `learning_rate_quantile` for the rest) make both updates (Adam for
the fraction network too, not RMSprop).
"""
from typing import List, Optional

import torch

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.dqn import DQNPolicy, TDLoss, make_adam
from ding.rl_utils.quantile import fqf_fraction_loss, iqn_nstep_td_error
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import positive


@POLICY_REGISTRY.register('fqf')
class FQFPolicy(DQNPolicy):
    """FQF's config keys and defaults (the rest inherited from DQNPolicy)."""
    # its update reads no host value (test_cuda_graph.py), but its capture has not been checked on a GPU
    graph_safe_update = False
    config = dict(
        type='fqf',
        learn=dict(
            learning_rate_fraction=positive(2.5e-9),
            learning_rate_quantile=positive(0.00005),
            kappa=1.0,  # Huber threshold of the quantile loss
            ent_coef=0,  # weight of the fraction-entropy bonus
        ),
    )

    def default_model(self) -> torch.nn.Module:
        from ding.model.fqf import FQF
        return build_model(FQF, self._cfg.model)

    def _make_optimizer(self, capturable: bool = False) -> torch.optim.Optimizer:
        learn = self._cfg.learn
        fraction = list(self._model.fraction_parameters())
        fraction_ids = {id(p) for p in fraction}
        rest = [p for p in self._model.parameters() if id(p) not in fraction_ids]
        return make_adam([dict(params=rest, lr=learn.learning_rate_quantile),
                          dict(params=fraction, lr=learn.learning_rate_fraction)], learn.learning_rate_quantile,
                         capturable)

    def _td_loss(self, data: Batch, reward: torch.Tensor, done: torch.Tensor,
                 weight: Optional[torch.Tensor]) -> TDLoss:
        out = self._model(data.obs)
        with torch.no_grad():
            target = self._target_model(data.next_obs)
            next_action = self._next_action(data.next_obs, target['logit'])
        td = iqn_nstep_td_error(out['q'], target['q'], data.action, next_action, reward, done,
                                self._cfg.discount_factor, out['quantiles_hats'], kappa=self._cfg.learn.kappa,
                                nstep=data.get('nstep'), weight=weight)
        fraction_loss = fqf_fraction_loss(out['q_tau_i'], out['q'], out['quantiles'], data.action)
        entropy = out['entropies'].mean()
        loss = td.loss + fraction_loss - self._cfg.learn.ent_coef * entropy
        return TDLoss(loss, td.td_error_per_sample, {
            'q_value': td.q_sa.mean().detach(), 'target_q_value': td.target_q.mean().detach(),
            'quantile_loss': td.loss.detach(), 'fraction_loss': fraction_loss.detach(), 'entropy': entropy.detach()})

    def _monitor_vars_learn(self) -> List[str]:
        return super()._monitor_vars_learn() + ['quantile_loss', 'fraction_loss', 'entropy']
