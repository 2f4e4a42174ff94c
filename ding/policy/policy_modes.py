"""The three faces of a `Policy` (ding/policy/policy.py): `learn_mode`, `collect_mode` and
`eval_mode`. Each is a thin view over the policy: the learner's update under the weights lock,
and acting on a stacked observation batch (`forward_batch`, the hot path) with the
`{env_id: obs}` form as an adapter around it."""
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import copy
import logging

import numpy as np
import torch
from easydict import EasyDict

from ding.data.batch import Batch, as_batch

if TYPE_CHECKING:
    from ding.policy.policy import Policy

logger = logging.getLogger('ding.policy')


def _to_numpy(out: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: (v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else v.to_numpy() if isinstance(v, Batch)
                else v) for k, v in out.items()}  # a Batch: a hybrid action's columns


def stack_env_obs(data: Mapping[Any, Any], env_ids: List[Any]) -> Any:
    """An `{env_id: obs}` dict as one batch in `env_ids` order (dict observations: a Batch)."""
    first = data[env_ids[0]]
    if isinstance(first, Mapping):
        return Batch.from_rows([data[i] for i in env_ids])
    if isinstance(first, torch.Tensor):
        return torch.stack([data[i] for i in env_ids])
    return np.stack([np.asarray(data[i]) for i in env_ids])


def _split_by_env(env_ids: List[Any], out: Mapping[str, Any]) -> Dict[Any, Dict[str, Any]]:
    return {env_id: {k: v[i] for k, v in out.items()} for i, env_id in enumerate(env_ids)}


class _Mode:
    name = ''

    def __init__(self, policy: 'Policy') -> None:
        self._policy = policy

    def get_attribute(self, name: str) -> Any:
        return self._policy.get_attribute(name)

    @property
    def cfg(self) -> EasyDict:
        return self._policy.cfg

    @property
    def policy(self) -> 'Policy':
        return self._policy

    @property
    def device(self) -> torch.device:
        """Where the policy learns and acts (policy.cuda)."""
        return self._policy._device

    def __repr__(self) -> str:
        return f'{type(self).__name__}({self._policy!r})'


SCHEDULE_KEY = 'lr_scheduler'  # the learn state's entry for learn.lr_scheduler (ding/torch_utils/lr_schedule.py)


def load_schedule_state(policy: 'Policy', state: Mapping[str, Any]) -> None:
    """After the policy loaded its own learn state (optimizers included): the schedule's place."""
    schedule = policy._scheduled_lr
    if schedule is None:
        return
    if SCHEDULE_KEY not in state:
        logger.warning('policy.learn.lr_scheduler is set but the loaded learn state has no schedule '
                       '(saved without one): the schedule starts from update 0')
        schedule.load_state_dict({'updates': 0})
        return
    schedule.load_state_dict(state[SCHEDULE_KEY])


class LearnMode(_Mode):
    name = 'learn'

    def forward(self, data: Any) -> Dict[str, Any]:
        """One update on `data` (a Batch, list of transitions or dict of columns)."""
        p = self._policy
        batch = as_batch(data).to_torch(p._device)
        with p._weights_lock:
            if not p._model.training:
                p._model.train()
            with p._learn_autocast():  # policy.learn.precision
                out = p._forward_learn(batch)
            p._after_update()
            p.publish_weights()
        return out

    def state_dict(self) -> Dict[str, Any]:
        """A copy taken between two updates, under the weights lock: torch's state dicts alias
        the live tensors, which the next update (in async mode, in another thread) would change
        under the caller, so a checkpoint could mix two optimizer steps."""
        with self._policy._weights_lock:
            state = self._policy._state_dict_learn()
            if self._policy._scheduled_lr is not None:  # where the schedules are: a resumed run goes on from there
                state = {**state, SCHEDULE_KEY: self._policy._scheduled_lr.state_dict()}
            return copy.deepcopy(state)

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        with self._policy._weights_lock:
            self._policy._load_state_dict_learn(state)
            load_schedule_state(self._policy, state)
            self._policy.publish_weights()

    def reset(self, env_ids: Optional[Sequence[int]] = None) -> None:
        pass

    def monitor_vars(self) -> List[str]:
        return self._policy._monitor_vars_learn()


class _ActingMode(_Mode):

    def _forward_batch(self, obs: Any, **kwargs: Any) -> Dict[str, torch.Tensor]:
        raise NotImplementedError

    def forward_batch(self, obs: Any, **kwargs: Any) -> Dict[str, np.ndarray]:
        """Act on a stacked observation array [B, ...]; returns numpy columns [B, ...]."""
        with torch.no_grad():
            return _to_numpy(self._forward_batch(self._policy.to_tensor(obs), **kwargs))

    def forward(self, data: Any, **kwargs: Any) -> Any:
        """Per-env form: `{env_id: obs}` -> `{env_id: {'action': ..., ...}}`.
        A stacked array or Batch goes straight to `forward_batch`."""
        if isinstance(data, Mapping) and not isinstance(data, Batch):
            env_ids = list(data.keys())
            return _split_by_env(env_ids, self.forward_batch(stack_env_obs(data, env_ids), **kwargs))
        return self.forward_batch(data, **kwargs)

    def state_dict(self) -> Dict[str, Any]:
        return {}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """A checkpoint's `model` weights become the policy's (e.g. a demo-collecting program
        acting with a trained SAC's final.pth.tar)."""
        if not state:  # what this mode's own state_dict() gives: nothing to load
            return
        policy = self._policy
        if 'model' not in state:
            raise KeyError(f"{type(policy).__name__}: the state has no 'model' weights (keys: {sorted(state)})")
        with policy._weights_lock:
            policy._model.load_state_dict(state['model'])
            policy.publish_weights()


class CollectMode(_ActingMode):
    name = 'collect'

    @property
    def transition_keys(self) -> Sequence[str]:
        return self._policy.transition_keys

    def _forward_batch(self, obs: Any, **kwargs: Any) -> Dict[str, torch.Tensor]:
        return self._policy._forward_collect(obs, **kwargs)

    def process_transition(self, obs: Any, output: Mapping[str, Any], timestep: Any) -> Dict[str, Any]:
        """One transition as a dict (the per-item compatible path)."""
        info = getattr(timestep, 'info', {}) or {}
        transition = {
            'obs': obs,
            'next_obs': timestep.obs,
            'action': output['action'],
            'reward': timestep.reward,
            'done': bool(timestep.done) and not info.get('truncated', False),
            'truncated': bool(info.get('truncated', False)),
        }
        for k in self.transition_keys:
            transition[k] = output[k]
        return transition

    def get_train_sample(self, data: Any) -> Batch:
        return self._policy._get_train_sample(as_batch(data))

    def worker_actor(self) -> Callable[[], Any]:
        """Picklable factory of the actor that collects inside env workers (env manager type
        'worker_inference'); NotImplementedError when this policy has none."""
        actor_fn = self._policy._worker_actor_fn()
        if actor_fn is None:
            raise NotImplementedError(f'{type(self._policy).__name__} cannot act inside env workers '
                                      f'(it defines no _worker_actor_fn)')
        return actor_fn

    def worker_weights(self, seen_version: Optional[int] = None) -> Optional[Tuple[int, Dict[str, Any]]]:
        """(version, collect-model state_dict) unless the weights are still at `seen_version`."""
        return self._policy.acting_weights('collect', seen_version)

    def reset(self, env_ids: Optional[Sequence[int]] = None) -> None:
        self._policy._reset_collect(env_ids)


class EvalMode(_ActingMode):
    name = 'eval'

    def _forward_batch(self, obs: Any, **kwargs: Any) -> Dict[str, torch.Tensor]:
        return self._policy._forward_eval(obs, **kwargs)

    def reset(self, env_ids: Optional[Sequence[int]] = None) -> None:
        self._policy._reset_eval(env_ids)
