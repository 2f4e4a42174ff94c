"""`QMIXPolicy` and `VDNPolicy`: off-policy cooperative multi-agent Q-learning with a mixed team value.

The DQN machinery is reused (ding/policy/dqn.py: optimiser, target network, checkpoints,
epsilon-greedy collection through `eps_greedy_handler`); what differs is the loss
(`mixing_td_loss` in ding/rl_utils/mixing.py, on the value the model mixes from the agents'
values) and acting per agent under the action mask. Transitions are single steps (unroll_len
1): the agent network is feed-forward. The exported `QMIXPolicy(cfg)` with `collect.unroll_len > 1`
builds the recurrent variant instead (ding/compat/policy_switches.py, ding/policy/qmix_recurrent.py).

Config keys: `learn.target_update_theta` (soft target update after every
update), `learn.discount_factor`, `learn.double_q` (bootstrap actions chosen by the online
network), `learn.clip_value` (gradient norm clip). The optimiser is RMSprop
(alpha 0.99, eps 1e-5, weight decay 1e-5), the one QMIX configs' learning rates are tuned for.
"""
from typing import Any, Dict, Optional

import torch

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.dqn import DQNPolicy, TDLoss
from ding.rl_utils.mixing import mixing_td_loss
from ding.rl_utils.td import soft_update
from ding.config.schema import not_read, prob


def masked_epsilon_greedy(logit: torch.Tensor, mask: Optional[torch.Tensor], eps: float) -> torch.Tensor:
    """Per agent: with probability eps a uniformly random *allowed* action, else the argmax of
    the (already masked) Q values. logit [B, A, n] -> action int64 [B, A]; eps < 0 is greedy."""
    greedy = logit.argmax(-1)
    if eps <= 0:
        return greedy
    allowed = torch.ones_like(logit) if mask is None else mask.float()
    random_action = torch.multinomial(allowed.reshape(-1, logit.shape[-1]), 1).view(greedy.shape)
    explore = torch.rand(greedy.shape, device=logit.device) < eps
    return torch.where(explore, random_action, greedy)


class QMIXPolicy(DQNPolicy):
    graph_safe_update = False  # not captured by learn.cuda_graph: not yet tried on a GPU
    config = dict(
        type='qmix',
        discount_factor=not_read(),  # QMIX's is learn.discount_factor
        learn=dict(
            update_per_collect=20,
            batch_size=32,
            learning_rate=0.0005,
            clip_value=100,
            target_update_theta=prob(0.008),
            discount_factor=prob(0.99),
            double_q=False,
            target_update_freq=0,  # soft updates with target_update_theta instead of hard copies
        ),
        collect=dict(unroll_len=1),
        other=dict(eps=dict(type='exp', start=1.0, end=0.05, decay=50000), replay_buffer=dict(
            replay_buffer_size=5000)),
    )
    model_class = 'qmix'

    def default_model(self) -> torch.nn.Module:
        from ding.model.qmix import QMix, VDN
        return build_model(QMix if self.model_class == 'qmix' else VDN, self._cfg.model)

    def _check_unroll_len(self) -> None:
        if int(self._cfg.collect.unroll_len) != 1:
            raise ValueError(f'{type(self).__name__} learns from single steps (feed-forward agent network): '
                             f'collect.unroll_len must be 1, got {self._cfg.collect.unroll_len}')

    def _init_learn(self) -> None:
        self._check_unroll_len()
        theta = float(self._cfg.learn.target_update_theta)
        if not 0 < theta <= 1:
            raise ValueError(f'{type(self).__name__}: learn.target_update_theta must be in (0, 1], got {theta}')
        self._cfg.learn.grad_norm = self._cfg.learn.clip_value  # this policy's key for DQN's gradient-norm clip
        super()._init_learn()

    def _td_loss(self, data: Batch, reward: torch.Tensor, done: torch.Tensor,
                 weight: Optional[torch.Tensor]) -> TDLoss:
        if weight is not None:
            raise ValueError(f'{type(self).__name__} does not weight samples: set priority_IS_weight=False')
        total_q = self._model(data.obs, action=data.action)['total_q']
        with torch.no_grad():
            if self._cfg.learn.double_q:  # the online network picks the bootstrap actions
                next_action = self._model(data.next_obs)['logit'].argmax(-1)
                next_total = self._target_model(data.next_obs, action=next_action)['total_q']
            else:
                next_total = self._target_model(data.next_obs, mix=True)['total_q']
        td = mixing_td_loss(total_q, next_total, reward, done, float(self._cfg.learn.discount_factor))
        priority = td.td_error_abs if td.td_error_abs.dim() == 1 else td.td_error_abs.mean(-1)
        stats = {'q_value': total_q.mean().detach(), 'target_q_value': td.target.mean().detach()}
        return TDLoss(td.loss, priority, stats)

    def _make_optimizer(self, capturable: bool = False) -> torch.optim.Optimizer:
        return torch.optim.RMSprop(self._model.parameters(), lr=self._cfg.learn.learning_rate, alpha=0.99, eps=1e-5,
                                   weight_decay=1e-5)

    def _update_target(self) -> None:
        soft_update(self._target_model.parameters(), self._model.parameters(), self._cfg.learn.target_update_theta)

    def _forward_collect(self, obs: Any, eps: Optional[float] = -1, **kwargs: Any) -> Dict[str, torch.Tensor]:
        logit = self._collect_model(obs)['logit']
        return {'action': masked_epsilon_greedy(logit, obs.get('action_mask'), -1 if eps is None else float(eps))}

    def _forward_eval(self, obs: Any, **kwargs: Any) -> Dict[str, torch.Tensor]:
        return {'action': self._eval_model(obs)['logit'].argmax(-1)}

    def _worker_actor_fn(self):
        return None  # acts on dict observations with masks: collected in this process


class VDNPolicy(QMIXPolicy):
    """QMIX's learning with the VDN model (team value = sum of the agents' values)."""
    config = dict(type='vdn')
    model_class = 'vdn'
