"""What SAC, discrete SAC, TD3 and DDPG learners share: a frozen target copy of the model, one
fused Adam over parameter groups (critic, actor; SAC adds its temperature) stepped after a *single* backward
pass of the summed losses, polyak target updates, and the batch columns they read.

One optimizer and one backward per update (instead of three) is where the learner's speed
comes from: the actor's loss is computed with the critic's weights detached
(`q_all(..., detach_weights=True)`), so adding it to the critic's loss leaves each network
with exactly its own gradient.
"""
import copy
from typing import Any, Dict, List, Optional, Sequence

import torch

from ding.data.batch import Batch
from ding.policy.policy import Policy
from ding.rl_utils.td import soft_update
from ding.torch_utils.cuda_graph import GraphedUpdate
from ding.torch_utils.optimizer_state import load_optimizer_state
from ding.config.schema import positive_int, prob


class QACPolicyBase(Policy):
    config = dict(
        random_collect_size=0,
        # cuda_graph: replay each update as one CUDA graph on a GPU (Policy._wants_cuda_graph)
        # ignore_done: bootstrap through every episode end (for time-limited envs)
        learn=dict(target_theta=prob(0.005), discount_factor=prob(0.99), ignore_done=False, cuda_graph=False),
        collect=dict(n_sample=1),
        eval=dict(evaluator=dict(eval_freq=5000)),
        other=dict(replay_buffer=dict(replay_buffer_size=positive_int(1000000))),
    )
    # model methods a subclass needs; checked at construction for a clear error
    required_model_methods: Sequence[str] = ('compute_actor', 'q_all', 'actor_params', 'critic_params')

    def _check_model(self) -> None:
        missing = [m for m in self.required_model_methods if not hasattr(self._model, m)]
        if missing:
            raise TypeError(f'{type(self).__name__} needs a model with {list(self.required_model_methods)} '
                            f'(e.g. ding.model.ContinuousQAC); {type(self._model).__name__} lacks {missing}')

    def _setup_learner(self, param_groups: List[Dict[str, Any]]) -> None:
        """Target network, optimizer and the learn-config scalars."""
        learn = self._cfg.learn
        self._gamma = float(learn.discount_factor)
        self._theta = float(learn.target_theta)
        self._ignore_done = bool(learn.ignore_done)
        self._target_model = copy.deepcopy(self._model)
        self._target_model.requires_grad_(False)
        graphed = self._wants_cuda_graph()
        self._optimizer = torch.optim.Adam(param_groups, fused=True, capturable=graphed)
        # learn.cuda_graph on a GPU: each update replayed as one captured graph (None: eager)
        self._graphed_update = GraphedUpdate(self._update_tensors) if graphed else None
        self._learn_iter = 0

    def _learn_inputs(self, data: Batch) -> Dict[str, Optional[torch.Tensor]]:
        obs, action, reward, next_obs, done, nstep, weight = self._columns(data)
        return dict(obs=obs, action=action, reward=reward, next_obs=next_obs, done=done, nstep=nstep, weight=weight)

    def _columns(self, data: Batch):
        """(obs, action, reward, next_obs, done, nstep, weight) from a learner batch.

        `done` is *terminated* (zeros when `learn.ignore_done`); `nstep` is present only after
        `nstep_reward_enhancer`; `weight` is the `priority_IS` column (prioritized replay) when `priority_IS_weight`."""
        done = data.done
        if self._ignore_done:
            done = torch.zeros_like(data.reward if data.reward.dim() == 1 else data.reward[:, 0])
        weight = None
        if self._cfg.priority_IS_weight:
            if 'priority_IS' not in data:
                raise KeyError(f'{type(self).__name__}: priority_IS_weight=True needs the batch column priority_IS '
                               f'(a prioritized replay buffer); columns: {sorted(data.keys())}')
            weight = data.priority_IS
        return data.obs, data.action, data.reward, data.next_obs, done, data.get('nstep'), weight

    def _apply_gradients(self, total_loss: torch.Tensor) -> None:
        self._optimizer.zero_grad(set_to_none=True)
        total_loss.backward()
        self._sync_gradients()
        self._optimizer.step()

    def _update_target(self, online: Optional[List[torch.nn.Parameter]] = None,
                       target: Optional[List[torch.nn.Parameter]] = None) -> None:
        """Polyak-average `target` towards `online` (default: the whole model)."""
        if online is None:
            online, target = list(self._model.parameters()), list(self._target_model.parameters())
        soft_update(target, online, self._theta)

    def _priority(self, td_abs: torch.Tensor) -> Dict[str, Any]:
        return {'priority': td_abs.cpu().numpy()} if self._cfg.priority else {}

    def _state_dict_learn(self) -> Dict[str, Any]:
        return {
            'model': self._model.state_dict(),
            'target_model': self._target_model.state_dict(),
            'optimizer': self._optimizer.state_dict(),
        }

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        self._model.load_state_dict(state['model'])
        if hasattr(self, '_target_model'):
            self._target_model.load_state_dict(state.get('target_model', state['model']))
        if hasattr(self, '_optimizer') and 'optimizer' in state:
            load_optimizer_state(self._optimizer, state['optimizer'])
        if getattr(self, '_graphed_update', None) is not None:  # the graph read the replaced optimizer tensors
            self._graphed_update = GraphedUpdate(self._update_tensors)
