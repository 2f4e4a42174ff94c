"""`MASACPolicy`: discrete soft actor-critic for cooperative multi-agent envs (MASAC).

Each agent acts from its own observation through the shared actor of a `MAQAC`; its critics
value every action from the global state. Learning is discrete SAC per agent on the team reward:
the agent axis is folded into the batch (`[B, A] -> [B * A]`, the team's reward and end shared
by the agents), so the losses are exactly discrete SAC's (ding/rl_utils/sac.py); masked actions
have probability 0 in the actor's exact expectations.

`SACDiscretePolicy(cfg)` with `cfg.multi_agent=True` builds this class: the exported
`SACDiscretePolicy` (ding/compat/policy_switches.py) hands such a config to this one.
"""
import math
from typing import Any, Dict, List

import torch
from torch import nn

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.sac_base import SACPolicyBase
from ding.rl_utils.td import critic_loss
from ding.rl_utils.sac import alpha_loss, discrete_sac_actor_loss, discrete_soft_q_target
from ding.utils.registry import POLICY_REGISTRY
from ding.policy.policy import as_floats


@POLICY_REGISTRY.register('masac')
class MASACPolicy(SACPolicyBase):
    config = dict(
        type='masac',
        multi_agent=True,
        model=dict(),  # MAQAC's arguments (agent_obs_shape, global_obs_shape, action_shape, ...)
        learn=dict(
            batch_size=320,
            target_entropy=None,  # None: 0.5 * log(n_actions), as DiscreteSACPolicy
        ),
    )

    def default_model(self) -> nn.Module:
        from ding.model.maqac import MAQAC
        return build_model(MAQAC, self._cfg.model)

    def _init_learn(self) -> None:
        self._check_model()
        self._setup_sac_learner(default_target_entropy=0.5 * math.log(self._model.action_dim))

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        obs, action, reward, next_obs, done, nstep, weight = self._columns(data)
        if nstep is not None or weight is not None:
            raise ValueError(f'{type(self).__name__} learns from 1-step transitions without priority weights')
        model, alpha = self._model, self._log_alpha.detach().exp()
        n_agent = action.shape[1]
        with torch.no_grad():  # the team's reward and end are each agent's
            target = discrete_soft_q_target(reward.repeat_interleave(n_agent), done.float().repeat_interleave(n_agent),
                                            fold_agents(self._target_model.q_all(next_obs)),
                                            fold_agents(model.compute_actor(next_obs)['logit']), alpha, self._gamma)
        q_all = fold_agents(model.q_all(obs))  # [k, B * A, n]
        index = action.long().reshape(1, -1, 1).expand(q_all.shape[0], -1, 1)
        q = q_all.gather(2, index).squeeze(-1)
        loss_q, _ = critic_loss(q, target, None)
        loss_pi, entropy = discrete_sac_actor_loss(q_all.detach(), fold_agents(model.compute_actor(obs)['logit']),
                                                   alpha)
        loss_alpha = alpha_loss(self._log_alpha, entropy, self._target_entropy)
        total = self._sac_update(loss_q, loss_pi, loss_alpha)
        stats = as_floats({'total_loss': total, 'critic_loss': loss_q, 'policy_loss': loss_pi, 'alpha_loss': loss_alpha,
                           'alpha': alpha, 'q_value': q[0].mean(), 'entropy': entropy.mean()})
        return {**stats, 'cur_lr_q': self._lr_scaled(self._cfg.learn.learning_rate_q)}

    def _monitor_vars_learn(self) -> List[str]:
        return ['cur_lr_q', 'total_loss', 'critic_loss', 'policy_loss', 'alpha_loss', 'alpha', 'q_value', 'entropy']

    def _forward_collect(self, obs: Any, **kwargs: Any) -> Dict[str, torch.Tensor]:
        logit = self._collect_model.compute_actor(obs)['logit']
        probs = torch.softmax(logit, dim=-1)
        action = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1).view(probs.shape[:-1])
        return {'action': action}

    def _forward_eval(self, obs: Any, **kwargs: Any) -> Dict[str, torch.Tensor]:
        return {'action': self._eval_model.compute_actor(obs)['logit'].argmax(-1)}


def fold_agents(x: torch.Tensor) -> torch.Tensor:
    """The agent axis folded into the batch: logits [B, A, n] -> [B * A, n]; Q [k, B, A, n] -> [k, B * A, n]."""
    return x.flatten(-3, -2)
