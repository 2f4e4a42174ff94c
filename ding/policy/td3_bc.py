"""TD3+BC (Fujimoto & Gu 2021): TD3 on a fixed dataset, whose actor also regresses onto the
dataset's actions; `learn.alpha` weighs the Q term, normalised by the batch's mean |Q|."""
from typing import Any, Dict

import torch

from ding.data.batch import Batch
from ding.policy.td3 import TD3Policy
from ding.rl_utils.offline import td3_bc_actor_loss
from ding.rl_utils.qac_targets import critic_loss
from ding.rl_utils.td3 import td3_q_target
from ding.utils.registry import POLICY_REGISTRY


@POLICY_REGISTRY.register('td3_bc')
class TD3BCPolicy(TD3Policy):
    """TD3's keys plus `learn.alpha` (2.5) and the dataset's `collect.data_type` / `data_path`."""
    config = dict(
        type='td3_bc',
        reward_batch_norm=False,
        action_space='continuous',
        model=dict(actor_head_hidden_size=256, critic_head_hidden_size=256),
        learn=dict(learning_rate_actor=1e-3, learning_rate_critic=1e-3, alpha=2.5, train_epoch=30000),
        collect=dict(data_type='naive', data_path=None),
        eval=dict(evaluator=dict(eval_freq=5000)),
    )

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        obs, action, reward, next_obs, done, nstep, weight = self._columns(data)
        action = action.float().reshape(len(obs), -1)
        with torch.no_grad():
            next_q = self._target_model.q_all(next_obs, self._target_action(next_obs))
            target = td3_q_target(reward, done, next_q, self._gamma, nstep)
        q = self._model.q_all(obs, action)
        loss_q, td_abs = critic_loss(q, target, weight)
        stats = {'critic_loss': loss_q, 'q_value': q[0].mean(), 'target_q_value': target.mean()}
        total = loss_q
        update_actor = self._learn_iter % self._actor_update_freq == 0
        if update_actor:
            pred = self._model.compute_actor(obs)['action']
            q_pi = self._model.q_all(obs, pred, detach_weights=True)[0]
            loss_actor = td3_bc_actor_loss(q_pi, pred, action, float(self._cfg.learn.alpha))
            stats['actor_loss'] = loss_actor
            total = total + loss_actor
        self._apply_gradients(total)
        if update_actor:
            self._update_target()
        self._learn_iter += 1
        stats['total_loss'] = total
        return {**self._to_floats(stats), 'cur_lr_actor': self._cfg.learn.learning_rate_actor,
                'cur_lr_critic': self._cfg.learn.learning_rate_critic, **self._priority(td_abs)}
