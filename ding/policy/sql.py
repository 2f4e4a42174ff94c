"""`SQLPolicy`: soft Q-learning on discrete actions (Haarnoja et al. 2017), registered as `sql`.

The Q-network is DQN's; what changes is the target and the acting. The target bootstraps from
the soft value alpha * logsumexp(Q_target(s') / alpha) instead of max Q (`ding/rl_utils/sql.py`),
and collection samples actions from softmax(Q / alpha), with epsilon-greedy on top
(`collect_kwargs['eps']` from `eps_greedy_handler`). Evaluation is greedy. `learn.alpha` is the
temperature: larger means more entropy in both the policy and the values.

Everything else (target network every `learn.target_update_freq` updates, n-step rewards,
prioritized-replay weights, checkpoints) is `DQNPolicy`'s.
"""
from typing import Any, Callable, Dict, List, Optional

import torch

from ding.data.batch import Batch
from ding.policy.dqn import DQNPolicy, TDLoss
from ding.rl_utils.sql import boltzmann_action, q_nstep_sql_td_error, soft_value
from ding.utils.registry import POLICY_REGISTRY


@POLICY_REGISTRY.register('sql')
class SQLPolicy(DQNPolicy):
    """SQL's config keys and defaults (the rest inherited from DQNPolicy)."""
    graph_safe_update = True  # replay checked against eager updates on an H200 (tests/policy/test_cuda_graph.py)
    config = dict(
        type='sql',
        discount_factor=0.97,
        nstep=1,
        learn=dict(
            update_per_collect=3,
            batch_size=64,
            learning_rate=0.001,
            target_update_freq=100,
            ignore_done=False,
            alpha=0.1,  # temperature of the soft value and the Boltzmann policy
        ),
        collect=dict(unroll_len=1),
        other=dict(
            eps=dict(type='exp', start=0.95, end=0.1, decay=10000),
            replay_buffer=dict(replay_buffer_size=10000),
        ),
    )

    def _init_learn(self) -> None:
        _check_alpha(self._cfg.learn.alpha)
        super()._init_learn()

    def _td_loss(self, data: Batch, reward: torch.Tensor, done: torch.Tensor,
                 weight: Optional[torch.Tensor]) -> TDLoss:
        alpha = float(self._cfg.learn.alpha)
        q = self._model(data.obs)['logit']
        with torch.no_grad():
            next_q_target = self._target_model(data.next_obs)['logit']
        td = q_nstep_sql_td_error(q, next_q_target, data.action, reward, done, self._cfg.discount_factor, alpha,
                                  nstep=data.get('nstep'), weight=weight)
        return TDLoss(td.loss, td.td_error_abs,
                      {'q_value': td.q_sa.mean().detach(), 'target_q_value': td.target.mean().detach(),
                       'record_value_function': soft_value(next_q_target, alpha).mean().detach()})

    def _monitor_vars_learn(self) -> List[str]:
        return super()._monitor_vars_learn() + ['record_value_function']

    def _init_collect(self) -> None:
        _check_alpha(self._cfg.learn.alpha)
        super()._init_collect()

    def _forward_collect(self, obs: torch.Tensor, eps: Optional[float] = -1, **kwargs: Any) -> Dict[str, torch.Tensor]:
        """Boltzmann sampling at temperature `learn.alpha`, uniform with probability eps."""
        out = self._collect_model(obs)
        action = boltzmann_action(out['logit'], float(self._cfg.learn.alpha), -1 if eps is None else float(eps),
                                  out.get('action_mask'))
        return {'action': action, 'logit': out['logit']}

    def _worker_actor_fn(self) -> Optional[Callable[[], Any]]:
        return None  # DQN's worker actor is eps-greedy; this policy samples from a softmax


def _check_alpha(alpha: Any) -> None:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or alpha <= 0:
        raise ValueError(f'SQLPolicy: learn.alpha (the temperature) must be a number > 0, got {alpha!r}')
