"""DDPG (Lillicrap et al. 2016): a deterministic actor in [-1, 1] trained through a learned Q,
Gaussian exploration noise when collecting. TD3 is this learner with twin critics, target
policy smoothing and delayed actor updates switched on (see `td3.py`)."""
import functools
from typing import Any, Callable, Dict, List

import torch
from torch import nn

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.model.qac import ContinuousQAC
from ding.policy.qac_base import QACPolicyBase
from ding.policy.qac_worker_actors import NoisyDeterministicActor
from ding.policy.worker_actor import model_copier
from ding.rl_utils.td import critic_loss
from ding.rl_utils.td3 import deterministic_actor_loss, smoothed_target_action, td3_q_target
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import head_width, positive, positive_int
from ding.policy.policy import as_floats


@POLICY_REGISTRY.register('ddpg')
class DDPGPolicy(QACPolicyBase):
    """learn: critic every update; actor (and target nets) every `learn.actor_update_freq`
    updates. collect: clip(mu(s) + N(0, collect.noise_sigma^2), -1, 1). eval: mu(s)."""
    config = dict(
        type='ddpg',
        random_collect_size=25000,
        model=dict(obs_shape=None, action_shape=None, action_space='regression', twin_critic=False,
                   actor_head_hidden_size=head_width(64), actor_head_layer_num=1,
                   critic_head_hidden_size=head_width(64), critic_head_layer_num=1),
        learn=dict(
            batch_size=256,
            learning_rate_actor=positive(1e-3),
            learning_rate_critic=positive(1e-3),
            actor_update_freq=positive_int(1),
            noise=False,  # target policy smoothing (TD3)
            noise_sigma=0.2,
            noise_range=dict(min=-0.5, max=0.5),
        ),
        collect=dict(noise_sigma=0.1),
    )

    def default_model(self) -> nn.Module:
        return build_model(ContinuousQAC, self._cfg.model)

    def _init_learn(self) -> None:
        self._check_model()
        if getattr(self._model, 'action_space', 'regression') != 'regression':
            raise ValueError(f"{type(self).__name__} needs a deterministic actor: "
                             f"set policy.model.action_space='regression'")
        learn = self._cfg.learn
        self._actor_update_freq = int(learn.actor_update_freq)
        self._smoothing = bool(learn.noise)
        self._setup_learner([
            {'params': self._model.critic_params(), 'lr': learn.learning_rate_critic},
            {'params': self._model.actor_params(), 'lr': learn.learning_rate_actor},
        ])

    def _target_action(self, next_obs: torch.Tensor) -> torch.Tensor:
        action = self._target_model.compute_actor(next_obs)['action']
        if self._smoothing:
            noise = self._cfg.learn.noise_range
            action = smoothed_target_action(action, self._cfg.learn.noise_sigma, noise.min, noise.max)
        return action

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        obs, action, reward, next_obs, done, nstep, weight = self._columns(data)
        action = action.float().reshape(len(obs), -1)  # datasets may store a 1-d action as [B]
        with torch.no_grad():
            next_q = self._target_model.q_all(next_obs, self._target_action(next_obs))
            target = td3_q_target(reward, done, next_q, self._gamma, nstep)
        q = self._model.q_all(obs, action)
        loss_q, td_abs = critic_loss(q, target, weight)
        stats = {'critic_loss': loss_q, 'q_value': q[0].mean(), 'target_q_value': target.mean()}
        self._critic_and_actor_step(loss_q, obs, action, stats)
        return {**as_floats(stats), 'cur_lr_actor': self._lr_scaled(self._cfg.learn.learning_rate_actor),
                'cur_lr_critic': self._lr_scaled(self._cfg.learn.learning_rate_critic), **self._priority(td_abs)}

    def _critic_and_actor_step(self, loss_q: torch.Tensor, obs: torch.Tensor, action: torch.Tensor,
                               stats: Dict[str, Any]) -> None:
        """One optimizer step on the critic's loss plus, every `learn.actor_update_freq` updates, the
        actor's (then the target nets move); adds `actor_loss` and `total_loss` to `stats`."""
        total = loss_q
        update_actor = self._learn_iter % self._actor_update_freq == 0
        if update_actor:
            loss_actor = self._actor_loss(obs, action)
            stats['actor_loss'] = loss_actor
            total = total + loss_actor
        self._apply_gradients(total)
        if update_actor:
            self._update_target()
        self._learn_iter += 1
        stats['total_loss'] = total

    def _actor_loss(self, obs: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
        """The actor climbs Q (`action`, the batch's own, is for variants that use it: TD3+BC)."""
        new_action = self._model.compute_actor(obs)['action']
        return deterministic_actor_loss(self._model.q_all(obs, new_action, detach_weights=True)[0])

    def _monitor_vars_learn(self) -> List[str]:
        return ['cur_lr_actor', 'cur_lr_critic', 'critic_loss', 'actor_loss', 'total_loss', 'q_value',
                'target_q_value']

    def _forward_collect(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        action = self._collect_model.compute_actor(obs)['action']
        sigma = self._cfg.collect.noise_sigma
        if sigma > 0:
            action = (action + sigma * torch.randn_like(action)).clamp(-1.0, 1.0)
        return {'action': action}

    def _worker_actor_fn(self) -> Callable[[], Any]:
        """The collect forward (mu(s) plus the clipped exploration noise) inside env workers."""
        return functools.partial(NoisyDeterministicActor, model_copier(self._collect_model),
                                 noise_sigma=float(self._cfg.collect.noise_sigma))

    def _forward_eval(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        return {'action': self._eval_model.compute_actor(obs)['action']}
