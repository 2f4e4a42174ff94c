"""Discrete soft actor-critic (Christodoulou 2019): a categorical actor, twin critics giving Q
for every action, so the soft value and the actor loss are exact expectations over actions."""
import functools
import math
from typing import Any, Callable, Dict, List

import torch
from torch import nn

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.model.qac import DiscreteQAC
from ding.policy.qac_worker_actors import CategoricalActor
from ding.policy.sac_base import SACPolicyBase
from ding.policy.worker_actor import model_copier
from ding.rl_utils.td import critic_loss
from ding.rl_utils.sac import alpha_loss, discrete_sac_actor_loss, discrete_soft_q_target
from ding.policy.policy import as_floats


class DiscreteSACPolicy(SACPolicyBase):
    """collect: a ~ softmax(logit). eval: argmax logit."""
    config = dict(
        type='discrete_sac',
        model=dict(obs_shape=None, action_shape=None, twin_critic=True, encoder_hidden_size_list=[64],
                   actor_head_hidden_size=64, actor_head_layer_num=1, critic_head_hidden_size=64,
                   critic_head_layer_num=1),
        learn=dict(
            batch_size=64,
            # None: 0.5 * log(n_actions). The paper's 0.98 * log(n) asks for a near-uniform
            # policy and drives alpha up without bound on easy tasks.
            target_entropy=None,
        ),
    )

    def default_model(self) -> nn.Module:
        return build_model(DiscreteQAC, self._cfg.model)

    def _init_learn(self) -> None:
        self._check_model()
        self._setup_sac_learner(default_target_entropy=0.5 * math.log(self._model.action_dim))

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        obs, action, reward, next_obs, done, nstep, weight = self._columns(data)
        model = self._model
        alpha = self._log_alpha.detach().exp()
        with torch.no_grad():
            target = discrete_soft_q_target(reward, done, self._target_model.q_all(next_obs),
                                            model.compute_actor(next_obs)['logit'], alpha, self._gamma, nstep)
        q_all = model.q_all(obs)  # [k, B, A]
        index = action.long().view(1, -1, 1).expand(q_all.shape[0], -1, 1)
        q = q_all.gather(2, index).squeeze(-1)
        loss_q, td_abs = critic_loss(q, target, weight)
        loss_pi, entropy = discrete_sac_actor_loss(q_all.detach(), model.compute_actor(obs)['logit'], alpha)
        loss_alpha = alpha_loss(self._log_alpha, entropy, self._target_entropy)
        total = self._sac_update(loss_q, loss_pi, loss_alpha)
        stats = as_floats({
            'total_loss': total,
            'critic_loss': loss_q,
            'policy_loss': loss_pi,
            'alpha_loss': loss_alpha,
            'alpha': alpha,
            'q_value': q[0].mean(),
            'entropy': entropy.mean(),
        })
        return {**stats, 'cur_lr_q': self._lr_scaled(self._cfg.learn.learning_rate_q), **self._priority(td_abs)}

    def _monitor_vars_learn(self) -> List[str]:
        return ['cur_lr_q', 'total_loss', 'critic_loss', 'policy_loss', 'alpha_loss', 'alpha', 'q_value', 'entropy']

    def _forward_collect(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        logit = self._collect_model.compute_actor(obs)['logit']
        action = torch.multinomial(torch.softmax(logit, dim=-1), 1).squeeze(-1)
        return {'action': action, 'logit': logit}

    def _worker_actor_fn(self) -> Callable[[], Any]:
        """The collect forward (a ~ softmax(logit)) inside env workers."""
        return functools.partial(CategoricalActor, model_copier(self._collect_model))

    def _forward_eval(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        logit = self._eval_model.compute_actor(obs)['logit']
        return {'action': logit.argmax(-1), 'logit': logit}


SACDiscretePolicy = DiscreteSACPolicy  # DI-engine's name (its ding/example/masac.py imports it)
