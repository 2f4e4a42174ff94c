"""What SAC, discrete SAC, TD3 and DDPG learners share: a frozen target copy of the model, one
fused Adam over parameter groups (critic, actor; SAC adds its temperature) stepped after a *single* backward
pass of the summed losses, polyak target updates, and the batch columns they read.

One optimizer and one backward per update (instead of three) is where the learner's speed
comes from: the actor's loss is computed with the critic's weights detached
(`q_all(..., detach_weights=True)`), so adding it to the critic's loss leaves each network
with exactly its own gradient.
"""
import copy
import logging
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from ding.data.batch import Batch
from ding.policy.base_policy import Policy
from ding.rl_utils.qac_targets import soft_update
from ding.torch_utils.cuda_graph import GraphedUpdate

logger = logging.getLogger(__name__)


class QACPolicyBase(Policy):
    config = dict(
        random_collect_size=0,
        # cuda_graph: replay each update as one CUDA graph (ding/torch_utils/cuda_graph.py); for the
        # policies with a graph-safe `_update_tensors` (SAC, EDAC) on a GPU
        learn=dict(target_theta=0.005, discount_factor=0.99, cuda_graph=False),
        collect=dict(n_sample=1),
        eval=dict(evaluator=dict(eval_freq=5000)),
        other=dict(replay_buffer=dict(replay_buffer_size=1000000)),
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
        graphed = bool(learn.cuda_graph) and self._check_cuda_graph()
        self._optimizer = torch.optim.Adam(param_groups, fused=True, capturable=graphed)
        self._graphed_update = GraphedUpdate(self._update_tensors) if graphed else None
        self._learn_iter = 0

    def _check_cuda_graph(self) -> bool:
        """Whether `learn.cuda_graph=True` applies: on a GPU. Raises where it never could. A learner
        on the CPU (`cuda=False`, or `cuda=True` on a machine without a GPU) updates eagerly, with
        a warning, so that one config serves both."""
        name = type(self).__name__
        if not hasattr(self, '_update_tensors'):
            raise ValueError(f'learn.cuda_graph=True: {name} has no graph-safe update; SACPolicy and EDACPolicy do')
        if self._device.type != 'cuda':
            logger.warning('learn.cuda_graph=True but %s learns on %s: updates run eagerly', name, self._device)
            return False
        if self._multi_gpu:
            raise ValueError('learn.cuda_graph=True cannot be combined with multi_gpu: the gradient all-reduce '
                             'is not captured')
        return True

    def _run_update(self, inputs: Dict[str, Optional[torch.Tensor]]) -> Dict[str, torch.Tensor]:
        """`_update_tensors(inputs)`, eagerly or replayed as a CUDA graph (`learn.cuda_graph`)."""
        run: Callable = self._graphed_update if self._graphed_update is not None else self._update_tensors
        return run(inputs)

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

    @staticmethod
    def _to_floats(stats: Dict[str, torch.Tensor]) -> Dict[str, float]:
        """Scalar tensors -> python floats with one device sync."""
        values = torch.stack([v.detach().float().reshape(()) for v in stats.values()]).tolist()
        return dict(zip(stats.keys(), values))

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
            self._optimizer.load_state_dict(state['optimizer'])
        if getattr(self, '_graphed_update', None) is not None:  # new optimizer-state tensors: capture again
            self._graphed_update = GraphedUpdate(self._update_tensors)
