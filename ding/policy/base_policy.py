"""`Policy`: one algorithm, seen through three modes.

- `learn_mode`   (the learner): `forward(batch) -> dict`, `state_dict`, `load_state_dict`,
                  `get_attribute`, `reset`, `monitor_vars`.
- `collect_mode` (acting to collect data): `forward_batch(obs, **kw)` on a stacked
                  observation array is the hot path; `forward({env_id: obs})` is the
                  DI-engine-compatible adapter around it.
- `eval_mode`    (greedy acting): the same two forms.

Acting runs on private copies of the learner's model. The learner bumps a version after every
update; an acting mode copies the newest weights at the start of its next forward, under the
lock the learner holds while it updates. So a collector in another thread (async mode) always
acts on a whole optimizer step, never half of one, and never blocks the learner for long.

A subclass declares `config` (merged up the class hierarchy by `default_config()`) and fills
in the hooks: `default_model`, `_init_learn`, `_forward_learn`, `_init_collect`,
`_forward_collect`, `_init_eval`, `_forward_eval` (acting with `self._collect_model` and
`self._eval_model`, never `self._model`), `_state_dict_learn`,
`_load_state_dict_learn`, and optionally `_get_train_sample`, `_monitor_vars_learn`,
`_reset_collect`, `_reset_eval`, `_worker_actor_fn` (acting inside env workers).
"""
import contextlib
import copy
import threading
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import torch
from easydict import EasyDict

from ding.data.batch import Batch, as_batch
from ding.utils.dicts import deep_merge


class Policy:
    config = dict(
        type=None,
        cuda=False,
        multi_gpu=False,  # data-parallel learners: see ding/utils/dist.py
        on_policy=False,
        priority=False,
        priority_IS_weight=False,
        discount_factor=0.99,
        nstep=1,
        model=dict(),
        learn=dict(batch_size=64, learning_rate=1e-3, update_per_collect=1, ignore_done=False),
        collect=dict(n_sample=None, n_episode=None, unroll_len=1),
        eval=dict(evaluator=dict(eval_freq=1000)),
        other=dict(),
    )
    # Output keys of `_forward_collect` stored in every transition (e.g. PPO's value, logp).
    transition_keys: Sequence[str] = ()
    # Set per class: written against DI-engine's protocol (ding/policy/di_engine_adapter.py).
    _di_engine_protocol = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # DI-engine's Policy makes `_process_transition` abstract; our protocol never defines it.
        cls._di_engine_protocol = callable(getattr(cls, '_process_transition', None))

    @classmethod
    def default_config(cls) -> EasyDict:
        cfg = EasyDict()
        for klass in reversed(cls.__mro__):
            if 'config' in vars(klass):
                cfg = deep_merge(cfg, klass.config)
        cfg.cfg_type = cls.__name__ + 'Dict'
        return cfg

    def __init__(self, cfg: Mapping, model: Optional[torch.nn.Module] = None,
                 enable_field: Optional[List[str]] = None) -> None:
        self._cfg = deep_merge(self.default_config(), cfg)
        use_cuda = bool(self._cfg.cuda) and torch.cuda.is_available()
        self._device = torch.device('cuda' if use_cuda else 'cpu')
        self._acting_models: Dict[str, torch.nn.Module] = {}  # set by a DI-engine `_init_collect/_init_eval`
        if model is None and self._di_engine_protocol:  # its default_model() names a registered model
            from ding.policy.di_engine_adapter import build_default_model
            model = build_default_model(self._cfg.model, self.default_model)
        self._model = (model if model is not None else self.default_model()).to(self._device)
        self._weights_lock = threading.RLock()
        self._weights_version = 0
        self._held_modes: set = set()  # acting modes kept at their version (see hold_acting_weights)
        self._fields = list(enable_field or ['learn', 'collect', 'eval'])
        self._modes: Dict[str, Any] = {}
        self._multi_gpu = bool(self._cfg.multi_gpu) and 'learn' in self._fields
        from ding.utils.weights_owner import register_owner  # weights loaded from outside refresh the acting copies
        register_owner(self._model, self.publish_weights)
        if self._multi_gpu:  # every rank starts from rank 0's weights (before target nets copy them)
            from ding.utils.dist import broadcast_module
            broadcast_module(self._model)
        if self._di_engine_protocol:
            from ding.policy.di_engine_adapter import set_di_engine_attributes
            set_di_engine_attributes(self)
        for field in self._fields:
            getattr(self, f'_init_{field}')()

    # --- hooks for subclasses -----------------------------------------------------------
    def default_model(self) -> torch.nn.Module:
        raise ValueError(f'{type(self).__name__} was given no model and defines no default_model(); '
                         f'pass model=... built from cfg.policy.model')

    def _init_learn(self) -> None:
        pass

    def _init_collect(self) -> None:
        pass

    def _init_eval(self) -> None:
        pass

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        raise NotImplementedError

    def _forward_collect(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        raise NotImplementedError

    def _forward_eval(self, obs: torch.Tensor) -> Dict[str, torch.Tensor]:
        raise NotImplementedError

    def _state_dict_learn(self) -> Dict[str, Any]:
        return {'model': self._model.state_dict()}

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        self._model.load_state_dict(state['model'])

    def _get_train_sample(self, data: Batch) -> Batch:
        return data

    def _monitor_vars_learn(self) -> List[str]:
        return ['cur_lr', 'total_loss']

    def _reset_collect(self, env_ids: Optional[Sequence[int]] = None) -> None:
        pass

    def _reset_eval(self, env_ids: Optional[Sequence[int]] = None) -> None:
        pass

    def _sync_gradients(self) -> None:
        """Called by each learn step between backward and clipping: with `multi_gpu`, average the
        optimizer's gradients over the learner ranks (one flattened all-reduce)."""
        if self._multi_gpu:
            from ding.utils.dist import sync_gradients
            optimizer = getattr(self, '_optimizer', None)
            params = [p for g in optimizer.param_groups for p in g['params']] if optimizer is not None \
                else list(self._model.parameters())
            sync_gradients(params)

    # --- weights shared between learner and actors -------------------------------------
    def acting_model(self, mode: str) -> torch.nn.Module:
        """The private copy of the model that `mode` acts with, refreshed to the newest weights."""
        entry = self._modes.get(mode)
        if entry is None:
            with self._weights_lock:
                model = copy.deepcopy(self._model)
                model.eval()
                # (destination, source) tensor lists, built once: a refresh is one fused copy.
                dst = [*model.parameters(), *model.buffers()]
                src = [*self._model.parameters(), *self._model.buffers()]
                entry = self._modes[mode] = [model, self._weights_version, dst, src]
        if entry[1] != self._weights_version and mode not in self._held_modes:
            with self._weights_lock, torch.no_grad():
                torch._foreach_copy_(entry[2], entry[3])
                entry[1] = self._weights_version
        return entry[0]

    @contextlib.contextmanager
    def hold_acting_weights(self, mode: str):
        """Refresh `mode`'s acting copy once, then keep it at that version inside the block:
        an evaluation round plays one set of weights even while a learner in another thread
        publishes new ones, and those exact weights can be saved after it. Yields the model."""
        model = self.acting_model(mode)
        self._held_modes.add(mode)
        try:
            yield model
        finally:
            self._held_modes.discard(mode)

    def acting_state(self, mode: str) -> Dict[str, Any]:
        """A checkpoint of the weights `mode`'s acting copy holds (e.g. those just evaluated):
        the whole learner state when the learner is still at that version (always so in sync
        mode), else, as the learner has moved on, those model weights alone."""
        with self._weights_lock:
            model, version = self._modes[mode][0], self._modes[mode][1]
            if version == self._weights_version and 'learn' in self._fields:
                return copy.deepcopy(self._state_dict_learn())
            return {'model': {k: v.detach().clone() for k, v in model.state_dict().items()}}

    @property
    def _collect_model(self) -> torch.nn.Module:
        model = self._acting_models.get('collect')
        return model if model is not None else self.acting_model('collect')

    @_collect_model.setter
    def _collect_model(self, model: torch.nn.Module) -> None:
        # DI-engine's `_init_collect` sets its own acting model (a wrapper sharing the learner's weights)
        self._acting_models['collect'] = model

    @property
    def _eval_model(self) -> torch.nn.Module:
        model = self._acting_models.get('eval')
        return model if model is not None else self.acting_model('eval')

    @_eval_model.setter
    def _eval_model(self, model: torch.nn.Module) -> None:
        self._acting_models['eval'] = model

    def publish_weights(self) -> None:
        """Say the learner's model changed (called after every update and on load)."""
        self._weights_version += 1

    def acting_weights(self, mode: str, seen_version: Optional[int] = None) -> Optional[Tuple[int, Dict[str, Any]]]:
        """(version, state_dict of `mode`'s acting copy, refreshed), or None when the learner's
        weights are still at `seen_version`: what a sampler publishes to its env workers."""
        if seen_version is not None and seen_version == self._weights_version and mode in self._modes:
            return None
        model = self.acting_model(mode)
        return self._modes[mode][1], model.state_dict()

    def _worker_actor_fn(self) -> Optional[Callable[[], Any]]:
        """A picklable factory of this policy's actor for env workers (`ding/policy/worker_actor.py`),
        or None when the policy cannot act inside a worker."""
        return None

    # --- modes ---------------------------------------------------------------------------
    @property
    def learn_mode(self) -> 'LearnMode':
        return self._mode_class('learn', LearnMode)(self)

    @property
    def collect_mode(self) -> 'CollectMode':
        return self._mode_class('collect', CollectMode)(self)

    @property
    def eval_mode(self) -> 'EvalMode':
        return self._mode_class('eval', EvalMode)(self)

    def _mode_class(self, name: str, ours: type) -> type:
        if not self._di_engine_protocol:
            return ours
        from ding.policy.di_engine_adapter import MODE_CLASSES
        return MODE_CLASSES[name]

    @property
    def cfg(self) -> EasyDict:
        return self._cfg

    def get_attribute(self, name: str) -> Any:
        for attr in ('_' + name, name):
            if hasattr(self, attr):
                return getattr(self, attr)
        raise AttributeError(f'{type(self).__name__} has no attribute {name!r}')

    def to_tensor(self, obs: Any) -> Any:
        if isinstance(obs, torch.Tensor):
            return obs.to(self._device)
        if isinstance(obs, Batch):
            return obs.to_torch(self._device)
        obs = np.asarray(obs)
        if obs.dtype == np.float64:
            obs = obs.astype(np.float32)
        return torch.from_numpy(obs).to(self._device)

    def __repr__(self) -> str:
        return f'{type(self).__name__}(model={type(self._model).__name__}, device={self._device})'


def _to_numpy(out: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: (v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else v) for k, v in out.items()}


def _split_by_env(env_ids: List[Any], out: Mapping[str, Any]) -> Dict[Any, Dict[str, Any]]:
    return {env_id: {k: v[i] for k, v in out.items()} for i, env_id in enumerate(env_ids)}


class _Mode:
    name = ''

    def __init__(self, policy: Policy) -> None:
        self._policy = policy

    def get_attribute(self, name: str) -> Any:
        return self._policy.get_attribute(name)

    @property
    def cfg(self) -> EasyDict:
        return self._policy.cfg

    @property
    def policy(self) -> Policy:
        return self._policy

    def __repr__(self) -> str:
        return f'{type(self).__name__}({self._policy!r})'


class LearnMode(_Mode):
    name = 'learn'

    def forward(self, data: Any) -> Dict[str, Any]:
        """One update on `data` (a Batch, list of transitions or dict of columns)."""
        p = self._policy
        batch = as_batch(data).to_torch(p._device)
        with p._weights_lock:
            if not p._model.training:
                p._model.train()
            out = p._forward_learn(batch)
            p.publish_weights()
        return out

    def state_dict(self) -> Dict[str, Any]:
        """A copy taken between two updates, under the weights lock: torch's state dicts alias
        the live tensors, which the next update (in async mode, in another thread) would change
        under the caller, so a checkpoint could mix two optimizer steps."""
        with self._policy._weights_lock:
            return copy.deepcopy(self._policy._state_dict_learn())

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        with self._policy._weights_lock:
            self._policy._load_state_dict_learn(state)
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
        """DI-engine form: `{env_id: obs}` -> `{env_id: {'action': ..., ...}}`.
        A stacked array or Batch goes straight to `forward_batch`."""
        if isinstance(data, Mapping) and not isinstance(data, Batch):
            env_ids = list(data.keys())
            first = data[env_ids[0]]
            if isinstance(first, Mapping):
                obs = Batch.from_rows([data[i] for i in env_ids])
            elif isinstance(first, torch.Tensor):
                obs = torch.stack([data[i] for i in env_ids])
            else:
                obs = np.stack([np.asarray(data[i]) for i in env_ids])
            return _split_by_env(env_ids, self.forward_batch(obs, **kwargs))
        return self.forward_batch(data, **kwargs)


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

    def state_dict(self) -> Dict[str, Any]:
        return {}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        pass


class EvalMode(_ActingMode):
    name = 'eval'

    def _forward_batch(self, obs: Any, **kwargs: Any) -> Dict[str, torch.Tensor]:
        return self._policy._forward_eval(obs, **kwargs)

    def reset(self, env_ids: Optional[Sequence[int]] = None) -> None:
        self._policy._reset_eval(env_ids)

    def state_dict(self) -> Dict[str, Any]:
        return {}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        pass
