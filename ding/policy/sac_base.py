"""What continuous and discrete SAC share: the entropy temperature (learned or fixed), one
fused optimizer over critic, actor and temperature, and the update that sums their losses."""
import math
from typing import Any, Dict, List

import torch

from ding.policy.qac_base import QACPolicyBase
from ding.config.schema import positive


class SACPolicyBase(QACPolicyBase):
    config = dict(
        learn=dict(
            learning_rate_q=positive(3e-4),
            learning_rate_policy=positive(3e-4),
            learning_rate_alpha=positive(3e-4),
            alpha=positive(0.2),  # initial temperature (the fixed one when auto_alpha=False)
            auto_alpha=True,
            target_entropy=None,  # None: the subclass's default
        ),
    )

    def _setup_sac_learner(self, default_target_entropy: float) -> None:
        """Optimizer groups for critic, actor and temperature; only the critics have targets."""
        learn = self._cfg.learn
        self._setup_learner([
            {'params': self._model.critic_params(), 'lr': learn.learning_rate_q},
            {'params': self._model.actor_params(), 'lr': learn.learning_rate_policy},
            *self._setup_temperature(default_target_entropy),
        ])
        self._target_critic = self._target_model.critic_params()
        self._online_critic = self._model.critic_params()

    def _setup_temperature(self, default_target_entropy: float) -> List[Dict[str, Any]]:
        """alpha = exp(log_alpha), from `learn.alpha`, `learn.auto_alpha`, `learn.target_entropy`
        (None: the default given). Returns the optimizer group for log_alpha ([] when alpha is fixed)."""
        learn = self._cfg.learn
        self._auto_alpha = bool(learn.auto_alpha)
        self._log_alpha = torch.nn.Parameter(torch.tensor(math.log(learn.alpha), device=self._device),
                                             requires_grad=self._auto_alpha)
        target = learn.target_entropy
        self._target_entropy = float(default_target_entropy if target is None else target)
        return [{'params': [self._log_alpha], 'lr': learn.learning_rate_alpha}] if self._auto_alpha else []

    def _sac_update(self, loss_q: torch.Tensor, loss_pi: torch.Tensor, loss_alpha: torch.Tensor) -> torch.Tensor:
        """`_sac_step`, counted as one learner iteration."""
        total = self._sac_step(loss_q, loss_pi, loss_alpha)
        self._learn_iter += 1
        return total

    def _sac_step(self, loss_q: torch.Tensor, loss_pi: torch.Tensor, loss_alpha: torch.Tensor) -> torch.Tensor:
        """One backward and optimizer step over the summed losses, then the critics' polyak update
        (tensor work only, so that a CUDA graph can capture it). Each loss's gradient reaches only its
        own parameters: the actor's loss reads the critics with detached weights, alpha's the entropy detached."""
        total = loss_q + loss_pi + (loss_alpha if self._auto_alpha else 0.0)
        self._apply_gradients(total)
        self._update_target(self._online_critic, self._target_critic)
        return total

    def _state_dict_learn(self) -> Dict[str, Any]:
        return {**super()._state_dict_learn(), 'log_alpha': self._log_alpha.detach().clone()}

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        super()._load_state_dict_learn(state)
        if 'log_alpha' in state and hasattr(self, '_log_alpha'):
            with torch.no_grad():
                self._log_alpha.copy_(state['log_alpha'])
