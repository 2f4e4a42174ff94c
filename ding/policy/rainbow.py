"""`RainbowDQNPolicy` (Hessel et al. 2018): C51's distributional loss with double-DQN action
selection, n-step returns, prioritized replay with importance weights, and a dueling network
of noisy layers (`RainbowDQN`).

Noise: the learner's model is in training mode, so each forward draws fresh weight noise; the
target net and the acting copies are in eval mode and use the noise-free mean weights (the
acting copies explore through eps-greedy, with the noise off).
With `priority_IS_weight=True` (the default) the replay buffer must be prioritized
(`PriorityExperienceReplay`, which adds the `priority_IS` column).
"""
import torch

from ding.model.from_config import build_model
from ding.policy.c51 import C51Policy
from ding.utils.registry import POLICY_REGISTRY


@POLICY_REGISTRY.register('rainbow')
class RainbowDQNPolicy(C51Policy):
    """Rainbow's config keys and defaults."""
    config = dict(
        type='rainbow',
        priority=True,
        priority_IS_weight=True,
        discount_factor=0.99,
        nstep=3,
        learn=dict(update_per_collect=1, batch_size=32, learning_rate=0.001, target_update_freq=100),
        other=dict(
            eps=dict(type='exp', start=0.05, end=0.05, decay=100000),
            # alpha, beta: PER's priority and importance-weight exponents; beta reaches 1 after anneal_step
            replay_buffer=dict(replay_buffer_size=100000, alpha=0.6, beta=0.4, anneal_step=100000),
        ),
    )

    def default_model(self) -> torch.nn.Module:
        from ding.model.rainbow import RainbowDQN
        return build_model(RainbowDQN, self._cfg.model)
