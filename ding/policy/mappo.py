"""`MAPPOPolicy`: PPO for cooperative multi-agent envs (Yu et al. 2022, "The Surprising
Effectiveness of PPO in Cooperative Multi-Agent Games").

Each agent acts from its own observation through the actor of a `MAVAC` (parameters shared by
the agents or not: `model.share_param`); the critic values the global state per agent. Every
per-agent column keeps the agent axis: collected `action`, `logp`, `value` are `[B, A]`;
`gae_estimator` computes `adv` and `return` per agent (`[T, B, A]` in time-major terms) from the
shared team reward; the PPO loss (ding/rl_utils/ppo.py) averages over rows and agents.

`learn.value_norm` (on by default): the critic learns
returns normalised by running statistics; collected values are de-normalised, so GAE works in
reward units.

`PPOPolicy(cfg)` with `cfg.multi_agent=True` builds this class: the exported `PPOPolicy`
(ding/compat/policy_switches.py) hands such a config to it.
"""
from typing import Any, Dict, List

import torch

from ding.data.batch import Batch
from ding.envs.env_wrappers.running_stats import RunningMeanStd
from ding.model.from_config import build_model
from ding.policy.onpolicy_base import action_distribution, logp_and_entropy
from ding.policy.ppo import PPOPolicy
from ding.rl_utils.adv_norm import normalize_advantage
from ding.rl_utils.ppo import ppo_loss
from ding.utils.registry import POLICY_REGISTRY


@POLICY_REGISTRY.register('mappo')
class MAPPOPolicy(PPOPolicy):
    config = dict(
        type='mappo',
        multi_agent=True,
        learn=dict(
            epoch_per_collect=5,
            batch_size=3200,
            learning_rate=5e-4,
            value_weight=0.5,
            entropy_weight=0.01,
            adv_norm=False,
            value_norm=True,
            grad_clip_value=10.0,
        ),
    )

    def default_model(self) -> torch.nn.Module:
        from ding.model.mavac import MAVAC
        return build_model(MAVAC, self._cfg.model)

    # --- learn ---------------------------------------------------------------------------
    def _init_learn(self) -> None:
        super()._init_learn()
        self._return_stats = RunningMeanStd() if self._cfg.learn.value_norm else None

    def _forward_learn(self, data: Batch) -> List[Dict[str, float]]:
        if self._return_stats is not None:  # statistics of this collect's returns, before any update
            self._return_stats.update(data['return'].detach().reshape(-1).cpu().numpy())
        return super()._forward_learn(data)

    def _update(self, mb: Batch) -> Dict[str, float]:
        """One optimiser step on a minibatch of rows; every per-agent tensor is `[b, A]`."""
        cfg = self._cfg.learn
        out = self._model(mb['obs'], mode='compute_actor_critic')
        logp, entropy = logp_and_entropy(out['logit'], self._learn_action(mb))
        adv = normalize_advantage(mb['adv']) if cfg.adv_norm else mb['adv']
        value_old, return_ = mb['value'], mb['return']
        if self._return_stats is not None:  # the critic works in normalised return units
            value_old, return_ = self._normalize(value_old), self._normalize(return_)
        losses = ppo_loss(logp, mb['logp'], adv, out['value'], value_old, return_, entropy,
                          clip_ratio=cfg.clip_ratio, value_clip=cfg.value_clip, value_weight=cfg.value_weight,
                          entropy_weight=self._entropy_weight())
        grad_norm = self._optimizer_step(losses['total_loss'])
        return self._scalars(dict(losses, grad_norm=grad_norm))

    def _normalize(self, x: torch.Tensor) -> torch.Tensor:
        s = self._return_stats
        return (x - float(s.mean)) / float(s.std)

    def _denormalize(self, x: torch.Tensor) -> torch.Tensor:
        s = getattr(self, '_return_stats', None)
        return x if s is None else x * float(s.std) + float(s.mean)

    def _state_dict_learn(self) -> Dict[str, Any]:
        state = super()._state_dict_learn()
        if self._return_stats is not None:
            state['return_stats'] = self._return_stats.state_dict()
        return state

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        super()._load_state_dict_learn(state)
        if 'return_stats' in state and getattr(self, '_return_stats', None) is not None:
            self._return_stats.load_state_dict(state['return_stats'])

    # --- collect / eval ------------------------------------------------------------------
    def _forward_collect(self, obs: Any, **kwargs: Any) -> Dict[str, torch.Tensor]:
        out = self._collect_model(obs, mode='compute_actor_critic')
        dist = action_distribution(out['logit'])
        action = dist.sample()
        result = {'action': self._env_action(action), 'logp': dist.log_prob(action),
                  'value': self._denormalize(out['value'])}
        if self._cfg.action_space == 'continuous':
            result['raw_action'] = action
        return result
