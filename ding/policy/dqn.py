"""`DQNPolicy`: deep Q-learning with double DQN, n-step targets, a target network updated hard
or softly, prioritized-replay weights and optional gradient clipping.

Target network rule: `learn.target_update_freq > 0` copies the online net into the target
after every `target_update_freq`-th update (hard, the default: 100). Set it to 0 to use soft
(Polyak) updates after every update with `learn.target_theta` in (0, 1] instead.

Prioritized replay: with `priority=True` the learn output carries `'priority'` (|TD error|
per sample); with `priority_IS_weight=True` each sample's squared error is weighted by the
batch column `priority_IS` (the buffer's importance-sampling weights), which must be present.
"""
import copy
import functools
from typing import Any, Callable, Dict, Iterable, List, Optional

import torch

from ding.data.batch import Batch
from ding.policy.base_policy import Policy
from ding.policy.worker_actor import EpsGreedyActor, model_copier
from ding.rl_utils.exploration import epsilon_greedy
from ding.rl_utils.qac_targets import soft_update
from ding.rl_utils.td import q_nstep_td_error
from ding.utils.registry import POLICY_REGISTRY


def make_adam(params: Iterable[torch.nn.Parameter], lr: float) -> torch.optim.Adam:
    """Adam with the fused kernel where this torch has it (one kernel for all parameters:
    ~15% off a small network's update on CPU), else the default implementation."""
    params = list(params)
    try:
        return torch.optim.Adam(params, lr=lr, fused=True)
    except (RuntimeError, TypeError):
        return torch.optim.Adam(params, lr=lr)


@POLICY_REGISTRY.register('dqn')
class DQNPolicy(Policy):
    """DI-engine's DQN config keys and behaviour; see the module docstring for the rules."""
    config = dict(
        type='dqn',
        discount_factor=0.97,
        nstep=1,
        learn=dict(
            update_per_collect=3,
            batch_size=64,
            learning_rate=0.001,
            target_update_freq=100,  # hard copy every N updates; 0 -> soft updates with target_theta
            target_theta=0.005,
            double_dqn=True,  # choose the next action with the online net, value it with the target net
            grad_norm=None,  # clip the gradient's global L2 norm to this value; None -> no clipping
            ignore_done=False,  # treat every transition as non-terminal (bootstrap always)
        ),
        collect=dict(n_sample=8, unroll_len=1),
        other=dict(
            eps=dict(type='exp', start=0.95, end=0.1, decay=10000),
            replay_buffer=dict(replay_buffer_size=10000),
        ),
    )

    def default_model(self) -> torch.nn.Module:
        from ding.model.dqn import DQN
        return DQN(**self._cfg.model)

    # --- learn ---------------------------------------------------------------------------
    def _init_learn(self) -> None:
        learn = self._cfg.learn
        if learn.target_update_freq <= 0 and not 0 < learn.target_theta <= 1:
            raise ValueError(f'DQNPolicy needs learn.target_update_freq > 0 (hard update) or '
                             f'learn.target_theta in (0, 1] (soft update); got {learn.target_update_freq} '
                             f'and {learn.target_theta}')
        if self._cfg.priority_IS_weight and not self._cfg.priority:
            raise ValueError('DQNPolicy: priority_IS_weight=True needs priority=True')
        self._optimizer = make_adam(self._model.parameters(), learn.learning_rate)
        self._target_model = copy.deepcopy(self._model)
        self._target_model.requires_grad_(False)
        self._target_model.eval()
        self._learn_step = 0

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        cfg = self._cfg
        reward = data.reward.float()
        if reward.dim() == 1 and cfg.nstep > 1:
            raise ValueError(f'DQNPolicy has nstep={cfg.nstep} but the batch reward is 1-step [B]; '
                             f'add nstep_reward_enhancer(cfg) after the collector')
        done = torch.zeros_like(reward[..., 0] if reward.dim() > 1 else reward) if cfg.learn.ignore_done \
            else data.done.float()
        weight = self._importance_weights(data)

        q = self._model(data.obs)['logit']
        with torch.no_grad():
            next_q_target = self._target_model(data.next_obs)['logit']
            next_q_online = self._model(data.next_obs)['logit'] if cfg.learn.double_dqn else None
        td = q_nstep_td_error(q, next_q_target, data.action, reward, done, cfg.discount_factor,
                              nstep=data.get('nstep'), weight=weight, next_q_online=next_q_online)

        self._optimizer.zero_grad(set_to_none=True)
        td.loss.backward()
        if cfg.learn.grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(self._model.parameters(), cfg.learn.grad_norm)
        self._optimizer.step()
        self._learn_step += 1
        self._update_target()

        out = {
            'cur_lr': self._optimizer.param_groups[0]['lr'],
            'total_loss': td.loss.item(),
            'q_value': td.q_sa.mean().item(),
            'target_q_value': td.target.mean().item(),
        }
        if cfg.priority:
            out['priority'] = td.td_error_abs.cpu().numpy()
        return out

    def _importance_weights(self, data: Batch) -> Optional[torch.Tensor]:
        if not self._cfg.priority_IS_weight:
            return None
        if 'priority_IS' not in data:
            raise KeyError(f"DQNPolicy has priority_IS_weight=True but the batch has no 'priority_IS' column "
                           f"(columns: {data.keys()}); use a prioritized replay buffer")
        return data.priority_IS.float()

    def _update_target(self) -> None:
        freq = self._cfg.learn.target_update_freq
        if freq > 0:
            if self._learn_step % freq == 0:
                self._target_model.load_state_dict(self._model.state_dict())
        else:
            soft_update(self._target_model.parameters(), self._model.parameters(), self._cfg.learn.target_theta)

    def _state_dict_learn(self) -> Dict[str, Any]:
        """A copy taken between updates: torch's state dicts alias the live tensors, which the
        next update (possibly in another thread) would change under the caller."""
        with self._weights_lock:
            return copy.deepcopy({
                'model': self._model.state_dict(),
                'target_model': self._target_model.state_dict(),
                'optimizer': self._optimizer.state_dict(),
                'learn_step': self._learn_step,
            })

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        """Loads what the checkpoint has; a policy built without learn mode takes the model only."""
        self._model.load_state_dict(state['model'])
        if hasattr(self, '_target_model'):
            self._target_model.load_state_dict(state.get('target_model', state['model']))
            if 'optimizer' in state:
                self._optimizer.load_state_dict(state['optimizer'])
            self._learn_step = state.get('learn_step', 0)

    def _monitor_vars_learn(self) -> List[str]:
        return ['cur_lr', 'total_loss', 'q_value', 'target_q_value']

    # --- collect / eval ------------------------------------------------------------------
    def _forward_collect(self, obs: torch.Tensor, eps: Optional[float] = -1, **kwargs: Any) -> Dict[str, torch.Tensor]:
        """Epsilon-greedy on the collect model; eps absent, None or negative -> greedy."""
        logit = self._collect_model(obs)['logit']
        return {'action': epsilon_greedy(logit, -1 if eps is None else float(eps)), 'logit': logit}

    def _worker_actor_fn(self) -> Callable[[], Any]:
        """Eps-greedy on a CPU copy of the Q-network, acting inside env workers."""
        return functools.partial(EpsGreedyActor, model_copier(self._collect_model))

    def _forward_eval(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        logit = self._eval_model(obs)['logit']
        return {'action': logit.argmax(dim=-1), 'logit': logit}
