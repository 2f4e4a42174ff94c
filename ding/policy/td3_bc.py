"""TD3+BC (Fujimoto & Gu 2021): TD3 on a fixed dataset, whose actor also regresses onto the
dataset's actions; `learn.alpha` weighs the Q term, normalised by the batch's mean |Q|."""

import torch

from ding.policy.td3 import TD3Policy
from ding.rl_utils.offline import td3_bc_actor_loss
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import positive_int


@POLICY_REGISTRY.register('td3_bc')
class TD3BCPolicy(TD3Policy):
    """TD3's keys plus `learn.alpha` (2.5) and the dataset's `collect.data_type` / `data_path`."""
    config = dict(
        type='td3_bc',
        action_space='continuous',
        model=dict(actor_head_hidden_size=256, critic_head_hidden_size=256),
        learn=dict(learning_rate_actor=1e-3, learning_rate_critic=1e-3, alpha=2.5, train_epoch=positive_int(30000)),
        collect=dict(data_type='naive', data_path=None),
        eval=dict(evaluator=dict(eval_freq=5000)),
    )

    def _actor_loss(self, obs: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
        pred = self._model.compute_actor(obs)['action']
        q_pi = self._model.q_all(obs, pred, detach_weights=True)[0]
        return td3_bc_actor_loss(q_pi, pred, action, float(self._cfg.learn.alpha))
