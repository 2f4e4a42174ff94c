"""`PPOOffPolicy`: PPO fed from a replay buffer instead of straight from the collector.

`gae_estimator(cfg, policy.collect_mode, buffer_)` pushes transitions with `adv` and `return`
into the buffer; `OffPolicyLearner` samples `batch_size` of them `update_per_collect` times
and calls `learn_mode.forward` once per sample: one clipped-PPO step each. The stored `logp`
is the behaviour policy's, so the ratio still measures how far the learner has moved from
the data; the clip keeps the update safe when the data is a few updates old.
"""
from typing import Dict

from ding.data.batch import Batch
from ding.policy.ppo import PPOPolicy, train_columns
from ding.utils.registry import POLICY_REGISTRY


@POLICY_REGISTRY.register('ppo_offpolicy')
class PPOOffPolicy(PPOPolicy):
    config = dict(
        type='ppo_offpolicy',
        on_policy=False,
        learn=dict(update_per_collect=8, batch_size=64),
        other=dict(replay_buffer=dict(replay_buffer_size=2048)),
    )

    def _forward_learn(self, data: Batch) -> Dict[str, float]:
        return self._update(train_columns(data, type(self).__name__))
