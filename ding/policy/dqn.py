"""`DQNPolicy`: deep Q-learning with double DQN, n-step targets, a target network updated hard
or softly, prioritized-replay weights and optional gradient clipping.

Target network rule: `learn.target_update_freq > 0` copies the online net into the target
after every `target_update_freq`-th update (hard, the default: 100). Set it to 0 to use soft
(Polyak) updates after every update with `learn.target_theta` in (0, 1] instead.

The DQN family (C51, QR-DQN, IQN, Rainbow) subclasses this policy and replaces `_td_loss`
(and the model): exploration, target nets, n-step, priorities and checkpoints are shared.

Loss and optimiser: the squared TD error and Adam (the defaults), or `learn.td_loss='huber'` and
`learn.optimizer='rmsprop'` (centered, `learn.rmsprop`): the Nature DQN's and the MinAtar paper's.

Prioritized replay: with `priority=True` the learn output carries `'priority'` (|TD error|
per sample); with `priority_IS_weight=True` each sample's squared error is weighted by the
batch column `priority_IS` (the buffer's importance-sampling weights), which must be present.
"""
import copy
import functools
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional

import torch

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.policy import Policy, as_floats
from ding.policy.worker_actor import EpsGreedyActor, model_copier
from ding.rl_utils.exploration import epsilon_greedy
from ding.rl_utils.td import q_nstep_td_error, soft_update
from ding.torch_utils.cuda_graph import GraphedUpdate
from ding.torch_utils.optimizer_state import load_optimizer_state
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import choice, non_negative_int, positive, positive_int, prob


def make_adam(params: Iterable[Any], lr: float, capturable: bool = False) -> torch.optim.Adam:
    """Adam with the fused kernel where this torch has it (one kernel for all parameters:
    ~15% off a small network's update on CPU), else the default implementation. `params`:
    parameters, or parameter groups (dicts, each with its own `lr`). `capturable`: its step
    counts live on the device, as a CUDA graph needs (`learn.cuda_graph`)."""
    params = list(params)
    try:
        return torch.optim.Adam(params, lr=lr, fused=True, capturable=capturable)
    except (RuntimeError, TypeError):
        return torch.optim.Adam(params, lr=lr, capturable=capturable)


class TDLoss(NamedTuple):
    """What a DQN-family loss hands to the shared update."""
    loss: torch.Tensor  # scalar, with gradient
    priority: torch.Tensor  # [B] no gradient: new PER priorities (|TD error| or the per-sample loss)
    stats: Dict[str, Any]  # monitored values (scalar tensors or floats), e.g. q_value, target_q_value


@POLICY_REGISTRY.register('dqn')
class DQNPolicy(Policy):
    """DQN's config keys and behaviour; see the module docstring for the rules."""
    graph_safe_update = True  # checked on an H200 for DQN, QR-DQN, IQN, C51, Rainbow; FQF, R2D2 say False
    config = dict(
        type='dqn',
        discount_factor=prob(0.97),
        nstep=1,
        learn=dict(
            update_per_collect=3,
            batch_size=64,
            learning_rate=positive(0.001),
            target_update_freq=non_negative_int(100),  # hard copy every N updates; 0 -> soft updates with target_theta
            target_theta=prob(0.005),
            double_dqn=True,  # choose the next action with the online net, value it with the target net
            grad_norm=None,  # clip the gradient's global L2 norm to this value; None -> no clipping
            ignore_done=False,  # treat every transition as non-terminal (bootstrap always)
            cuda_graph=False,  # replay each update as one CUDA graph on a GPU (Policy._wants_cuda_graph)
            # the per-sample TD loss: 'squared' (the default) or 'huber' (the Nature DQN's, MinAtar's, SB3's)
            td_loss=choice('squared', 'squared', 'huber'),
            # 'adam' (the default) or 'rmsprop': the Nature DQN's and MinAtar's, with the settings below
            optimizer=choice('adam', 'adam', 'rmsprop'),
            rmsprop=dict(alpha=prob(0.95), eps=positive(0.01), centered=True),  # read with optimizer='rmsprop'
        ),
        collect=dict(n_sample=8, unroll_len=1),
        other=dict(
            eps=dict(type='exp', start=prob(0.95), end=prob(0.1), decay=positive_int(10000)),
            replay_buffer=dict(replay_buffer_size=positive_int(10000)),
        ),
    )

    def default_model(self) -> torch.nn.Module:
        from ding.model.dqn import DQN
        return build_model(DQN, self._cfg.model)

    # --- learn ---------------------------------------------------------------------------
    def _init_learn(self) -> None:
        learn = self._cfg.learn
        if learn.target_update_freq <= 0 and not 0 < learn.target_theta <= 1:
            raise ValueError(f'{type(self).__name__} needs learn.target_update_freq > 0 (hard update) or '
                             f'learn.target_theta in (0, 1] (soft update); got {learn.target_update_freq} '
                             f'and {learn.target_theta}')
        if self._cfg.priority_IS_weight and not self._cfg.priority:
            raise ValueError(f'{type(self).__name__}: priority_IS_weight=True needs priority=True')
        # a family member with its own loss or optimizer would ignore these keys: say so instead
        if learn.td_loss != 'squared' and type(self)._td_loss is not DQNPolicy._td_loss:
            raise ValueError(f"{type(self).__name__} has its own TD loss; learn.td_loss={learn.td_loss!r} is "
                             f"DQN's choice only (leave it 'squared')")
        if learn.optimizer != 'adam' and type(self)._make_optimizer is not DQNPolicy._make_optimizer:
            raise ValueError(f"{type(self).__name__} builds its own optimizer; learn.optimizer={learn.optimizer!r} "
                             f"is for the DQN family's shared one (leave it 'adam')")
        graphed = self._wants_cuda_graph()
        self._optimizer = self._make_optimizer(capturable=graphed)
        # learn.cuda_graph on a GPU: each update replayed as one captured graph (None: eager)
        self._graphed_update = GraphedUpdate(self._update_tensors) if graphed else None
        self._target_model = copy.deepcopy(self._model)
        self._target_model.requires_grad_(False)
        self._target_model.eval()
        self._learn_step = 0

    def _make_optimizer(self, capturable: bool = False) -> torch.optim.Optimizer:
        learn = self._cfg.learn
        if learn.optimizer == 'rmsprop':
            return torch.optim.RMSprop(self._model.parameters(), lr=learn.learning_rate, alpha=learn.rmsprop.alpha,
                                       eps=learn.rmsprop.eps, centered=learn.rmsprop.centered, capturable=capturable)
        return make_adam(self._model.parameters(), learn.learning_rate, capturable)

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        """The update shared by the DQN family (`_update_tensors`, eagerly or replayed as a CUDA
        graph with `learn.cuda_graph`), then the step count, the target net and the statistics."""
        inputs = self._learn_inputs(data)
        out = dict(self._update_tensors(inputs) if self._graphed_update is None else self._graphed_update(inputs))
        self._learn_step += 1
        self._update_target()
        priority = out.pop('priority')
        result = {'cur_lr': float(self._optimizer.param_groups[0]['lr']), **as_floats(out)}
        if self._cfg.priority:
            result['priority'] = priority.cpu().numpy()
        return result

    def _learn_inputs(self, data: Batch) -> Any:
        """What `_update_tensors` takes: the batch itself, or its columns as a flat dict of tensors
        when the update is captured (a graph reads fixed tensors)."""
        if self._graphed_update is None:
            return data
        columns = dict(data.items())
        nested = [k for k, v in columns.items() if not isinstance(v, torch.Tensor)]
        if nested:
            raise TypeError(f'learn.cuda_graph=True needs tensor columns; {type(self).__name__} got {nested} '
                            f'as {[type(columns[k]).__name__ for k in nested]}')
        return columns

    def _update_tensors(self, data: Any) -> Dict[str, torch.Tensor]:
        """One gradient step on `_td_loss`: tensors only, so that a CUDA graph can capture it.
        Returns the loss, the loss's statistics and the new priorities [B]."""
        data = data if isinstance(data, Batch) else Batch(**data)
        cfg = self._cfg
        reward = data.reward.float()
        if reward.dim() == 1 and cfg.nstep > 1:
            raise ValueError(f'{type(self).__name__} has nstep={cfg.nstep} but the batch reward is 1-step [B]; '
                             f'add nstep_reward_enhancer(cfg) after the collector')
        done = torch.zeros_like(reward[..., 0] if reward.dim() > 1 else reward) if cfg.learn.ignore_done \
            else data.done.float()
        td = self._td_loss(data, reward, done, self._importance_weights(data))

        self._optimizer.zero_grad(set_to_none=True)
        td.loss.backward()
        self._sync_gradients()
        if cfg.learn.grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(self._model.parameters(), cfg.learn.grad_norm)
        self._optimizer.step()
        return {'total_loss': td.loss, **td.stats, 'priority': td.priority}

    def _td_loss(self, data: Batch, reward: torch.Tensor, done: torch.Tensor,
                 weight: Optional[torch.Tensor]) -> TDLoss:
        """TD error of the Q values, squared or Huber (`learn.td_loss`); double DQN when `learn.double_dqn`."""
        q = self._model(data.obs)['logit']
        with torch.no_grad():
            next_q_target = self._target_model(data.next_obs)['logit']
            next_q_online = self._model(data.next_obs)['logit'] if self._cfg.learn.double_dqn else None
        td = q_nstep_td_error(q, next_q_target, data.action, reward, done, self._cfg.discount_factor,
                              nstep=data.get('nstep'), weight=weight, next_q_online=next_q_online,
                              loss=self._cfg.learn.td_loss)
        return TDLoss(td.loss, td.td_error_abs,
                      {'q_value': td.q_sa.mean(), 'target_q_value': td.target.mean()})

    @torch.no_grad()
    def _next_action(self, next_obs: torch.Tensor, next_logit_target: torch.Tensor) -> torch.Tensor:
        """The bootstrap action a* at s': argmax of the online net (double DQN, `learn.double_dqn`)
        or of the target net's Q values `next_logit_target`."""
        chooser = self._model(next_obs)['logit'] if self._cfg.learn.double_dqn else next_logit_target
        return chooser.argmax(dim=-1)

    def _importance_weights(self, data: Batch) -> Optional[torch.Tensor]:
        if not self._cfg.priority_IS_weight:
            return None
        if 'priority_IS' not in data:
            raise KeyError(f"{type(self).__name__} has priority_IS_weight=True but the batch has no 'priority_IS' "
                           f"column (columns: {data.keys()}); use a prioritized replay buffer")
        return data.priority_IS.float()

    def _update_target(self) -> None:
        freq = self._cfg.learn.target_update_freq
        if freq > 0:
            if self._learn_step % freq == 0:
                self._target_model.load_state_dict(self._model.state_dict())
        else:
            soft_update(self._target_model.parameters(), self._model.parameters(), self._cfg.learn.target_theta)

    def _state_dict_learn(self) -> Dict[str, Any]:
        # LearnMode.state_dict copies this under the weights lock
        return {
            'model': self._model.state_dict(),
            'target_model': self._target_model.state_dict(),
            'optimizer': self._optimizer.state_dict(),
            'learn_step': self._learn_step,
        }

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        """Loads what the checkpoint has; a policy built without learn mode takes the model only."""
        self._model.load_state_dict(state['model'])
        if hasattr(self, '_target_model'):
            self._target_model.load_state_dict(state.get('target_model', state['model']))
            if 'optimizer' in state:
                load_optimizer_state(self._optimizer, state['optimizer'])
                if self._graphed_update is not None:  # the graph read the replaced optimizer tensors
                    self._graphed_update = GraphedUpdate(self._update_tensors)
            self._learn_step = state.get('learn_step', 0)

    def _monitor_vars_learn(self) -> List[str]:
        return ['cur_lr', 'total_loss', 'q_value', 'target_q_value']

    # --- collect / eval ------------------------------------------------------------------
    def _forward_collect(self, obs: torch.Tensor, eps: Optional[float] = -1, **kwargs: Any) -> Dict[str, torch.Tensor]:
        """Epsilon-greedy on the collect model; eps absent, None or negative -> greedy."""
        out = self._collect_model(obs)
        action = epsilon_greedy(out['logit'], -1 if eps is None else float(eps), out.get('action_mask'))
        return {'action': action, 'logit': out['logit']}

    def _worker_actor_fn(self) -> Callable[[], Any]:
        """Eps-greedy on a CPU copy of the Q-network, acting inside env workers."""
        return functools.partial(EpsGreedyActor, model_copier(self._collect_model))

    def _forward_eval(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        logit = self._eval_model(obs)['logit']
        return {'action': logit.argmax(dim=-1), 'logit': logit}
