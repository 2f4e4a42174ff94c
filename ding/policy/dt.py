"""`DTPolicy`: Decision Transformer (Chen et al. 2021), offline.

learn: windows of `context_len` steps from a 'sequence' dataset (`create_dataset` with
`collect.data_type='sequence'`); returns-to-go are divided by `rtg_scale`, observations
normalised by `state_mean` / `state_std` (dt.py sets them from `dataset.get_state_stats()`);
AdamW (`learning_rate`, `wt_decay`) with a linear warm-up over `warmup_steps` updates and the
gradient norm clipped to `clip_grad_norm_p`; the loss is `dt_action_loss`.

eval: conditioned on a target return. Each env starts at R = rtg_target / rtg_scale; after
each step R -= reward / rtg_scale, and the action comes from the last `context_len` steps of
(R, s, a). The reward reaches the policy in the observation: wrap the evaluator's envs in
`AllinObsWrapper` (obs = {'obs', 'reward'}). `reset(env_ids)`
starts those envs' contexts over.
"""
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import torch

from ding.data.batch import Batch
from ding.model.decision_transformer import DecisionTransformer
from ding.model.from_config import build_model
from ding.policy.policy import Policy
from ding.policy.onpolicy_base import require_columns
from ding.rl_utils.dt import dt_action_loss
from ding.torch_utils.optimizer_state import load_optimizer_state
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import non_negative_int, positive

SEQUENCE_COLUMNS = ('timesteps', 'obs', 'action', 'returns_to_go', 'mask')


@POLICY_REGISTRY.register('dt')
class DTPolicy(Policy):
    config = dict(
        type='dt',
        rtg_scale=1000,  # returns-to-go are divided by this
        rtg_target=None,  # the return asked for at evaluation (required for eval)
        max_eval_ep_len=1000,  # longest evaluation episode: the per-env context buffers' length
        wt_decay=1e-4,
        warmup_steps=non_negative_int(10000),  # linear learning-rate warm-up
        context_len=20,
        learning_rate=positive(1e-4),
        clip_grad_norm_p=0.25,
        state_mean=None,
        state_std=None,
        model=dict(),
        learn=dict(batch_size=64),
        collect=dict(data_type='sequence', data_path=None),
    )

    def default_model(self) -> torch.nn.Module:
        return build_model(DecisionTransformer, self._cfg.model)

    def _init_learn(self) -> None:
        self._optimizer = torch.optim.AdamW(self._model.parameters(), lr=self._cfg.learning_rate,
                                            weight_decay=self._cfg.wt_decay, fused=True)
        warmup = max(1, int(self._cfg.warmup_steps))
        self._scheduler = torch.optim.lr_scheduler.LambdaLR(self._optimizer, lambda it: min((it + 1) / warmup, 1.0))
        self._state_norm = self._state_stats()

    def _state_stats(self):
        mean, std = self._cfg.state_mean, self._cfg.state_std
        if (mean is None) != (std is None):
            raise ValueError('DTPolicy: set both state_mean and state_std (dataset.get_state_stats()) or neither')
        if mean is None:
            return None
        return tuple(torch.as_tensor(np.asarray(x), dtype=torch.float32, device=self._device) for x in (mean, std))

    def _normalise(self, obs: torch.Tensor) -> torch.Tensor:
        obs = obs.float()
        return obs if self._state_norm is None else (obs - self._state_norm[0]) / self._state_norm[1]

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        require_columns(data, SEQUENCE_COLUMNS, 'DTPolicy', "a 'sequence' dataset (collect.data_type='sequence')")
        mask = data['mask'].bool()
        states = self._normalise(data['obs']) * mask.unsqueeze(-1)  # padding stays zero
        rtg = data['returns_to_go'].float() / self._cfg.rtg_scale
        _, action_preds, _ = self._model(data['timesteps'], states, data['action'], rtg)
        loss = dt_action_loss(action_preds, data['action'], mask, self._model.continuous)
        self._optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self._sync_gradients()
        torch.nn.utils.clip_grad_norm_(self._model.parameters(), self._cfg.clip_grad_norm_p)
        self._optimizer.step()
        self._scheduler.step()
        return {'action_loss': float(loss.detach()), 'cur_lr': float(self._optimizer.param_groups[0]['lr'])}

    def _monitor_vars_learn(self) -> List[str]:
        return ['cur_lr', 'action_loss']

    def _state_dict_learn(self) -> Dict[str, Any]:
        return {'model': self._model.state_dict(), 'optimizer': self._optimizer.state_dict(),
                'scheduler': self._scheduler.state_dict()}

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        self._model.load_state_dict(state['model'])
        if hasattr(self, '_optimizer') and 'optimizer' in state:
            load_optimizer_state(self._optimizer, state['optimizer'])
            self._scheduler.load_state_dict(state['scheduler'])

    # --- eval: per-env contexts conditioned on the return still wanted ------------------------
    def _init_eval(self) -> None:
        if not hasattr(self, '_state_norm'):
            self._state_norm = self._state_stats()
        self._contexts: Optional[Dict[str, torch.Tensor]] = None

    def _new_contexts(self, n_env: int, obs_dim: int) -> None:
        steps, model = int(self._cfg.max_eval_ep_len), self._eval_model
        action_shape = (n_env, steps, model.act_dim) if model.continuous else (n_env, steps)
        self._contexts = {
            'obs': torch.zeros(n_env, steps, obs_dim, device=self._device),
            'action': torch.zeros(action_shape, device=self._device,
                                  dtype=torch.float32 if model.continuous else torch.long),
            'rtg': torch.zeros(n_env, steps, device=self._device),
            't': torch.zeros(n_env, dtype=torch.long, device=self._device),
        }

    def _reset_eval(self, env_ids: Optional[Sequence[int]] = None) -> None:
        if self._contexts is None or env_ids is None:
            self._contexts = None
            return
        ids = torch.as_tensor(list(env_ids), dtype=torch.long, device=self._device)
        for value in self._contexts.values():
            value[ids] = 0

    def _forward_eval(self, obs: Any, **kwargs: Any) -> Dict[str, torch.Tensor]:
        if not isinstance(obs, (dict, Batch)) or 'reward' not in obs:
            raise ValueError('DTPolicy evaluation reads the last reward from the observation: wrap the evaluator '
                             "envs in AllinObsWrapper (obs = {'obs', 'reward'})")
        if self._cfg.rtg_target is None:
            raise ValueError('DTPolicy evaluation needs cfg.policy.rtg_target (the return to condition on)')
        state, reward = self._normalise(obs['obs']), obs['reward'].float().reshape(-1)
        n_env = state.shape[0]
        if self._contexts is None or self._contexts['obs'].shape[0] != n_env:
            self._new_contexts(n_env, state.shape[-1])
        c, rows = self._contexts, torch.arange(n_env, device=self._device)
        t = c['t']
        if (t >= c['obs'].shape[1]).any():
            raise ValueError(f'DTPolicy: an evaluation episode outlasted max_eval_ep_len={self._cfg.max_eval_ep_len}')
        scale = float(self._cfg.rtg_scale)
        previous = c['rtg'][rows, (t - 1).clamp(min=0)]
        c['rtg'][rows, t] = torch.where(t == 0, torch.full_like(previous, self._cfg.rtg_target / scale),
                                        previous - reward / scale)
        c['obs'][rows, t] = state
        action = self._act(t)
        c['action'][rows, t] = action
        c['t'] = t + 1
        return {'action': action}

    def _act(self, t: torch.Tensor) -> torch.Tensor:
        """The action at step t of every env from its last `context_len` steps (left-aligned windows)."""
        c, k = self._contexts, self._eval_model.context_len
        start = (t + 1 - k).clamp(min=0)
        index = start[:, None] + torch.arange(k, device=self._device)[None, :]  # [n, K]
        real = index <= t[:, None]
        index = torch.where(real, index, t[:, None])
        rows = torch.arange(len(t), device=self._device)[:, None]
        timesteps = torch.where(real, index, torch.zeros_like(index))
        _, action_preds, _ = self._eval_model(timesteps, c['obs'][rows, index], c['action'][rows, index],
                                              c['rtg'][rows, index])
        pred = action_preds[torch.arange(len(t), device=self._device), (t - start)]
        return pred if self._eval_model.continuous else pred.argmax(-1)
