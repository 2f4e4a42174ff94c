"""`PPOPolicy`: proximal policy optimisation, discrete or continuous actions.

Collecting stores each transition's `value` and `logp`; `gae_estimator` adds `adv` and
`return`. One `learn_mode.forward(batch)` then makes `epoch_per_collect` passes over the batch
in shuffled minibatches of `batch_size`, one optimiser step each, and returns one dict of
scalars per step (`multistep_trainer` counts them as train iterations).
"""
from typing import Dict, List

import torch

from ding.data.batch import Batch
from ding.policy.onpolicy_base import OnPolicyBase, logp_and_entropy, require_columns
from ding.rl_utils.adv_norm import normalize_advantage
from ding.rl_utils.ppo import ppo_loss
from ding.config.schema import non_negative, positive_int, prob

TRAIN_COLUMNS = ('obs', 'logp', 'value', 'adv', 'return')


class PPOPolicy(OnPolicyBase):
    config = dict(
        type='ppo',
        learn=dict(
            epoch_per_collect=positive_int(10),
            batch_size=64,
            clip_ratio=non_negative(0.2),
            # clip the value update around the collected value too (off by default: with
            # unnormalised returns a 0.2 clip slows the critic down a lot)
            value_clip=False,
            value_weight=0.5,
            # normalise advantages per minibatch
            adv_norm=True,
        ),
        collect=dict(gae_lambda=prob(0.95)),
    )

    def _forward_learn(self, data: Batch) -> List[Dict[str, float]]:
        data = train_columns(data, type(self).__name__)
        cfg = self._cfg.learn
        n = len(data)
        batch_size = min(int(cfg.batch_size), n)
        outputs = []
        for _ in range(int(cfg.epoch_per_collect)):
            order = torch.randperm(n, device=self._device)
            for start in range(0, n - batch_size + 1, batch_size):
                outputs.append(self._update(data[order[start:start + batch_size]]))
        return outputs

    def _update(self, mb: Batch) -> Dict[str, float]:
        """One optimiser step on one minibatch."""
        cfg = self._cfg.learn
        out = self._model(mb['obs'], mode='compute_actor_critic')
        logp, entropy = logp_and_entropy(out['logit'], self._learn_action(mb))
        adv = normalize_advantage(mb['adv']) if cfg.adv_norm else mb['adv']
        losses = ppo_loss(logp, mb['logp'], adv, out['value'], mb['value'], mb['return'], entropy,
                          clip_ratio=cfg.clip_ratio, value_clip=cfg.value_clip, value_weight=cfg.value_weight,
                          entropy_weight=self._entropy_weight())
        grad_norm = self._optimizer_step(losses['total_loss'])
        return self._scalars(dict(losses, grad_norm=grad_norm))

    def _monitor_vars_learn(self):
        return super()._monitor_vars_learn() + ['value_loss', 'approx_kl', 'clip_fraction']


def train_columns(data: Batch, owner: str) -> Batch:
    """Only the columns the update reads (so minibatch indexing copies nothing else)."""
    require_columns(data, TRAIN_COLUMNS + ('action', ), owner, 'gae_estimator')
    keys = TRAIN_COLUMNS + ('action', ) + (('raw_action', ) if 'raw_action' in data else ())
    return Batch({k: data[k] for k in keys})
