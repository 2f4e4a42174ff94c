"""`BehaviourCloningPolicy`: supervised imitation of a dataset's actions, discrete
(cross-entropy on logits) or continuous (L1 / MSE on the action, or the Gaussian's mean)."""
from typing import Any, Dict, List

import torch
from torch import nn

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.policy import Policy
from ding.rl_utils.exploration import epsilon_greedy
from ding.rl_utils.offline import bc_continuous_loss, bc_discrete_loss
from ding.torch_utils.optimizer_state import load_optimizer_state
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import positive, positive_int


@POLICY_REGISTRY.register('bc')
class BehaviourCloningPolicy(Policy):
    """BC's keys: `continuous`, `loss_type` ('l1_loss' / 'mse_loss', continuous only),
    `learn.optimizer` ('SGD' with `momentum`, or 'Adam'), `learn.weight_decay`,
    `learn.ce_label_smooth`, `learn.tanh_mask` (continuous: no gradient where the target
    action lies beyond tanh(+-1) and the prediction is already past it), `learn.lr_decay`
    (x`decay_rate` every `decay_epoch` epochs after `warmup_epoch` epochs at `warmup_lr`;
    the pipeline's epoch is counted in updates of `learn.batch_size` over `learn.epoch_size`
    rows, set by whoever knows the dataset). Collect: the cloned action (continuous: plus
    Gaussian noise when `collect.noise`). Eval: the greedy action."""
    config = dict(
        type='bc',
        continuous=False,
        loss_type='l1_loss',
        learn=dict(
            update_per_collect=1,
            batch_size=32,
            learning_rate=positive(1e-5),
            lr_decay=False,
            decay_epoch=30,
            decay_rate=0.1,
            warmup_lr=1e-4,
            warmup_epoch=3,
            epoch_size=None,  # rows per epoch, for lr_decay's epoch count (None: no decay schedule)
            optimizer='SGD',
            momentum=0.9,
            weight_decay=1e-4,
            ce_label_smooth=False,
            show_accuracy=False,
            tanh_mask=False,
            train_epoch=positive_int(30),
        ),
        collect=dict(unroll_len=1, noise=False, noise_sigma=0.2, noise_range=dict(min=-0.5, max=0.5),
                     data_type='naive', data_path=None),
        eval=dict(evaluator=dict(eval_freq=1000)),
    )

    def default_model(self) -> nn.Module:
        from ding.model.bc import ContinuousBC, DiscreteBC
        return build_model(ContinuousBC if self._cfg.continuous else DiscreteBC, self._cfg.model)

    def _init_learn(self) -> None:
        learn = self._cfg.learn
        if learn.optimizer == 'SGD':
            self._optimizer = torch.optim.SGD(self._model.parameters(), lr=learn.learning_rate,
                                              momentum=learn.momentum, weight_decay=learn.weight_decay or 0.0)
        elif learn.optimizer == 'Adam':
            self._optimizer = torch.optim.AdamW(self._model.parameters(), lr=learn.learning_rate,
                                                weight_decay=learn.weight_decay or 0.0)
        else:
            raise ValueError(f"learn.optimizer must be 'SGD' or 'Adam', got {learn.optimizer!r}")
        if self._cfg.continuous and self._cfg.loss_type not in ('l1_loss', 'mse_loss'):
            raise ValueError(f"loss_type must be 'l1_loss' or 'mse_loss', got {self._cfg.loss_type!r}")
        self._learn_step = 0

    def _lr_now(self) -> float:
        learn = self._cfg.learn
        if not learn.lr_decay or not learn.epoch_size:
            return learn.learning_rate
        epoch = self._learn_step * learn.batch_size // learn.epoch_size
        if epoch <= learn.warmup_epoch:
            return learn.warmup_lr
        return learn.learning_rate * learn.decay_rate ** ((epoch - learn.warmup_epoch) // learn.decay_epoch)

    @staticmethod
    def _continuous_action(out: Dict[str, Any]) -> torch.Tensor:
        """A continuous model's action; a Gaussian head is cloned through its mean."""
        return out['action'] if 'action' in out else torch.tanh(out['logit'][0])

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        obs = data.obs
        stats: Dict[str, Any] = {}
        if self._cfg.continuous:
            action = data.action.float().reshape(len(obs), -1)
            pred = self._continuous_action(self._model(obs))
            if self._cfg.learn.tanh_mask:
                bound = float(torch.tanh(torch.tensor(1.0)))
                beyond = ((action > bound) & (pred > bound)) | ((action < -bound) & (pred < -bound))
                pred = torch.where(beyond, action, pred)  # those entries add no loss and no gradient
            loss = bc_continuous_loss(pred, action, self._cfg.loss_type)
        else:
            logit = self._model(obs)['logit']
            loss = bc_discrete_loss(logit, data.action, 0.1 if self._cfg.learn.ce_label_smooth else 0.0)
            if self._cfg.learn.show_accuracy:
                stats['accuracy'] = (logit.argmax(-1) == data.action.long().reshape(-1)).float().mean().item()
        lr = self._lr_scaled(self._lr_now())  # its own decay, times learn.lr_scheduler's factor
        for group in self._optimizer.param_groups:
            group['lr'] = lr
        self._optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self._sync_gradients()
        self._optimizer.step()
        self._learn_step += 1
        return {'cur_lr': lr, 'total_loss': loss.item(), **stats}

    def _monitor_vars_learn(self) -> List[str]:
        return ['cur_lr', 'total_loss'] + (['accuracy'] if self._cfg.learn.show_accuracy else [])

    def _state_dict_learn(self) -> Dict[str, Any]:
        return {'model': self._model.state_dict(), 'optimizer': self._optimizer.state_dict(),
                'learn_step': self._learn_step}

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        self._model.load_state_dict(state['model'])
        if hasattr(self, '_optimizer') and 'optimizer' in state:
            load_optimizer_state(self._optimizer, state['optimizer'])
            self._learn_step = state.get('learn_step', 0)

    def _act(self, model: nn.Module, obs: torch.Tensor) -> torch.Tensor:
        out = model(obs)
        return self._continuous_action(out) if self._cfg.continuous else out['logit'].argmax(-1)

    def _forward_collect(self, obs: torch.Tensor, eps: float = 0.0, **kwargs: Any) -> Dict[str, torch.Tensor]:
        if not self._cfg.continuous:  # epsilon-greedy over the allowed actions
            out = self._collect_model(obs)
            return {'action': epsilon_greedy(out['logit'], -1 if eps is None else float(eps), out.get('action_mask'))}
        action = self._act(self._collect_model, obs)
        collect = self._cfg.collect
        if collect.noise:
            noise = (torch.randn_like(action) * collect.noise_sigma).clamp(collect.noise_range.min,
                                                                          collect.noise_range.max)
            action = (action + noise).clamp(-1.0, 1.0)
        return {'action': action}

    def _forward_eval(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        return {'action': self._act(self._eval_model, obs)}
