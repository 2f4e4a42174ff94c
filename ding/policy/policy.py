"""`Policy`: one algorithm, seen through three modes.

- `learn_mode`   (the learner): `forward(batch) -> dict`, `state_dict`, `load_state_dict`,
                  `get_attribute`, `reset`, `monitor_vars`.
- `collect_mode` (acting to collect data): `forward_batch(obs, **kw)` on a stacked
                  observation array is the hot path; `forward({env_id: obs})` takes one
                  observation per env id and answers per env id.
- `eval_mode`    (greedy acting): the same two forms.

Acting runs on private copies of the learner's model that follow its weights version
(`acting_weights.py`); the three modes are thin views over the policy (`policy_modes.py`).

A subclass declares `config` (merged up the class hierarchy by `default_config()`) and fills
in the hooks: `default_model`, `_init_learn`, `_forward_learn`, `_init_collect`,
`_forward_collect`, `_init_eval`, `_forward_eval` (acting with `self._collect_model` and
`self._eval_model`, never `self._model`), `_state_dict_learn`,
`_load_state_dict_learn`, and optionally `_get_train_sample`, `_monitor_vars_learn`,
`_reset_collect`, `_reset_eval`, `_worker_actor_fn` (acting inside env workers).

ding's own policies subclass this class. User code subclasses `ding.policy.Policy`
(ding/compat/policy.py): this one, plus the protocol of the framework whose API ding keeps.
"""
import logging
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import numpy as np
import torch
from easydict import EasyDict

from ding.data.batch import Batch
from ding.policy.acting_weights import ActingWeights
from ding.torch_utils.lr_schedule import ScheduledLR, lr_schedulers_of, optimizers_of, parse_schedule
from ding.torch_utils.precision import PRECISIONS, learner_autocast, return_float32
# The modes live in their own module; these names stay importable from here.
from ding.policy.policy_modes import CollectMode, EvalMode, LearnMode  # noqa: F401
from ding.utils.class_config import merged_class_config
from ding.utils.dicts import deep_merge
from ding.config.schema import choice, positive_int

logger = logging.getLogger('ding.policy')
_warned_no_cuda = False


def policy_device(cuda: bool) -> torch.device:
    """CUDA when the config asks for it and there is one; otherwise the CPU, said once per process:
    a config written on a GPU machine still runs on one without."""
    global _warned_no_cuda
    if not cuda:
        return torch.device('cpu')
    if torch.cuda.is_available():
        return torch.device('cuda')
    if not _warned_no_cuda:
        _warned_no_cuda = True
        logger.warning('policy.cuda=True but torch finds no CUDA device: the policy runs on the CPU')
    return torch.device('cpu')


def flush_denormals() -> None:
    """Have the CPU treat denormal floats as zero, for the whole process (torch.set_flush_denormal).

    Why: the Adam moments of a weight whose gradient stays 0 (a dead ReLU unit, an input that is
    always 0) shrink by beta each update until they are denormal, and x86 CPUs compute on denormals
    many times slower: with a tenth of SAC-sized moments denormal, Adam's step took 12x its time
    (benchmarks/results/adam_denormals.json), and SAC on Hopper spent 30% of each env step there
    80k steps in. Flushing them changes no update: such a moment was already below 1e-38."""
    if torch.set_flush_denormal(True):
        logger.debug('the CPU flushes denormal floats to zero (torch.set_flush_denormal)')


def as_floats(stats: Dict[str, Any]) -> Dict[str, float]:
    """A learn step's statistics: scalar tensors (and plain numbers) -> python floats, with one
    device sync for all of them."""
    tensors = {k: v for k, v in stats.items() if isinstance(v, torch.Tensor)}
    values = torch.stack([v.detach().float().reshape(()) for v in tensors.values()]).tolist() if tensors else []
    floats = dict(zip(tensors.keys(), values))
    return {k: floats[k] if k in floats else float(v) for k, v in stats.items()}


class Policy(ActingWeights):
    config = dict(
        type=None,
        cuda=False,
        multi_gpu=False,  # data-parallel learners: see ding/utils/dist.py
        on_policy=False,
        priority=False,
        priority_IS_weight=False,
        # the discount factor and the learning rate(s) are declared by the policies that read them:
        # their names and places differ (discount_factor, learn.discount_factor, collect.discount_factor)
        nstep=positive_int(1),  # n-step returns, read by the off-policy pipelines (nstep_reward_enhancer)
        model=dict(),
        # lr_scheduler: None, or a schedule of every learning rate over the updates
        # (e.g. dict(epoch_num=N, min_lr_lambda=m); ding/torch_utils/lr_schedule.py);
        # nonfinite: a NaN / inf loss or gradient norm 'raise's (stops the run) or 'warn's
        # (ding/framework/middleware/loss_guard.py);
        # precision: 'bf16' runs each update's matmuls and convolutions in bfloat16 (ding/torch_utils/precision.py)
        # learn.ignore_done is declared by the off-policy learners that read it (DQN's, QAC's)
        learn=dict(batch_size=positive_int(64), update_per_collect=positive_int(1), lr_scheduler=None,
                   nonfinite=choice('raise', 'raise', 'warn'), precision=choice('fp32', *PRECISIONS)),
        collect=dict(n_sample=positive_int(None), n_episode=positive_int(None), unroll_len=positive_int(1)),
        eval=dict(evaluator=dict(eval_freq=1000)),  # <= 0 (e.g. -1): every iteration
        other=dict(),
    )
    # True where the update is `_update_tensors`, pure tensor work a CUDA graph can capture (_wants_cuda_graph)
    graph_safe_update = False
    # Output keys of `_forward_collect` stored in every transition (e.g. PPO's value, logp).
    transition_keys: Sequence[str] = ()

    default_config = classmethod(merged_class_config)

    def __init__(self, cfg: Mapping, model: Optional[torch.nn.Module] = None,
                 enable_field: Optional[List[str]] = None) -> None:
        self._cfg = deep_merge(self.default_config(), cfg)
        self._device = policy_device(bool(self._cfg.cuda))
        self._model = (model if model is not None else self.default_model()).to(self._device)
        self._init_acting_weights()
        self._fields = list(enable_field or ['learn', 'collect', 'eval'])
        precision = self._cfg.learn.precision if 'learn' in self._fields else 'fp32'
        # LearnMode runs each update in it
        self._learn_autocast = learner_autocast(precision, self._device, bool(self._cfg.learn.get('cuda_graph')))
        if precision != 'fp32':
            return_float32(self._model)  # before the target and acting copies are made
        self._multi_gpu = bool(self._cfg.multi_gpu) and 'learn' in self._fields
        if 'learn' in self._fields and self._device.type == 'cpu':
            flush_denormals()
        from ding.utils.weights_owner import register_owner  # weights loaded from outside refresh the acting copies
        register_owner(self._model, self.publish_weights)
        if self._multi_gpu:  # every rank starts from rank 0's weights (before target nets copy them)
            from ding.utils.dist import broadcast_module
            broadcast_module(self._model)
        for field in self._fields:
            getattr(self, f'_init_{field}')()
        self._scheduled_lr = self._make_lr_schedule() if 'learn' in self._fields else None

    def _make_lr_schedule(self) -> Optional[ScheduledLR]:
        """`learn.lr_scheduler` over every optimizer `_init_learn` made, whatever the policy: the
        one place schedules are built, so no policy can forget it."""
        schedule = parse_schedule(self._cfg.learn.get('lr_scheduler'), 'policy.learn.lr_scheduler')
        if schedule is None:
            return None
        optimizers, own = optimizers_of(self), lr_schedulers_of(self)
        if not optimizers:
            raise ValueError(f'policy.learn.lr_scheduler: {type(self).__name__} has no optimizer to schedule')
        return ScheduledLR(schedule, optimizers, own)

    def _after_update(self) -> None:
        """Called by the learn mode after each `_forward_learn`: the schedules move one update on."""
        if self._scheduled_lr is not None:
            self._scheduled_lr.step()

    def _lr_scaled(self, base_lr: float) -> float:
        """The rate this update runs with for a group configured at `base_lr` (for the logged `cur_lr_*`)."""
        return base_lr * (self._scheduled_lr.factor if getattr(self, '_scheduled_lr', None) is not None else 1.0)

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

    def keeps_eval_state(self) -> bool:
        """Whether eval acting keeps state across forwards (a subclass resets it per episode)."""
        return type(self)._reset_eval is not Policy._reset_eval

    def _sync_gradients(self) -> None:
        """Called by each learn step between backward and clipping: with `multi_gpu`, average the
        optimizer's gradients over the learner ranks (one flattened all-reduce)."""
        if self._multi_gpu:
            from ding.utils.dist import sync_gradients
            optimizer = getattr(self, '_optimizer', None)
            params = [p for g in optimizer.param_groups for p in g['params']] if optimizer is not None \
                else list(self._model.parameters())
            sync_gradients(params)

    def _wants_cuda_graph(self) -> bool:
        """Whether updates will be captured as CUDA graphs (`learn.cuda_graph`, on a GPU learner;
        ding/torch_utils/cuda_graph.py). A policy opts in by writing its update as
        `_update_tensors(inputs) -> outputs` (tensor work only: no host sync, no Python state
        changed inside) and setting `graph_safe_update = True`; it then calls
        `GraphedUpdate(self._update_tensors)` instead. Raises where capture never could apply; on a
        CPU learner, warns and returns False (one config serves both). Ask before making the
        optimizer: a captured one must be `capturable`."""
        if not self._cfg.learn.get('cuda_graph', False):
            return False
        name = type(self).__name__
        if not self.graph_safe_update:
            raise ValueError(f'learn.cuda_graph=True: {name} has no graph-safe update (graph_safe_update is False)')
        if self._device.type != 'cuda':
            logger.warning('learn.cuda_graph=True but %s learns on %s: updates run eagerly', name, self._device)
            return False
        if self._multi_gpu:
            raise ValueError('learn.cuda_graph=True cannot be combined with multi_gpu: the gradient all-reduce '
                             'is not captured')
        return True

    def _worker_actor_fn(self) -> Optional[Callable[[], Any]]:
        """A picklable factory of this policy's actor for env workers (`ding/policy/worker_actor.py`),
        or None when the policy cannot act inside a worker."""
        return None

    # --- modes ---------------------------------------------------------------------------
    @property
    def learn_mode(self) -> 'LearnMode':
        return LearnMode(self)

    @property
    def collect_mode(self) -> 'CollectMode':
        return CollectMode(self)

    @property
    def eval_mode(self) -> 'EvalMode':
        return EvalMode(self)

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

    def export(self, path: str, format: str = 'torchscript', **kwargs: Any) -> Dict[str, Any]:
        """Write the greedy actor (float32 obs batch -> action batch) as a TorchScript or ONNX
        file that runs without ding; see `ding.policy.export.export_policy` for the options."""
        from ding.policy.export import export_policy
        return export_policy(self, path, format, **kwargs)

    def __repr__(self) -> str:
        return f'{type(self).__name__}(model={type(self._model).__name__}, device={self._device})'
