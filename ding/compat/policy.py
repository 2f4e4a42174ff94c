"""`ding.policy.Policy` as user code sees it: ding's `Policy`, which also runs a subclass written
against DI-engine's Policy protocol, seen through our batched modes.

A DI-engine policy acts on `{env_id: obs}` dicts (`_forward_collect(data, **kw) -> {env_id:
{'action': ...}}`), builds each transition itself (`_process_transition(obs, output,
timestep)`) and learns from a list of those transitions (`_forward_learn(list)`). A subclass
that defines `_process_transition` (which our own protocol has no use for) is detected as one
when the class is made; for it:

- the model, when none is given, is the registered one that `cfg.model.type` or
  `default_model()` names (`build_default_model`), and the attributes DI-engine's base sets
  (`_cuda`, `_rank`, `_on_policy`, `_enable_field`) are there before its `_init_*` run;
- `learn.lr_scheduler` is left to a policy that makes its own scheduler;
- collect / eval: `forward(dict)` calls the hook as DI-engine does; `forward_batch(obs)` (what
  our collectors and evaluator call) makes the `{i: obs[i]}` dict from the stacked array and
  stacks the actions back; the policy's own per-env outputs ride along for
  `_process_transition`. `transition_recorder(env_num)` gives the collectors a
  `DIEngineTransitions` (ding/compat/transitions.py), DI-engine's per-env transition
  lists, instead of our columns.
- learn: `forward(data)` hands `_forward_learn` a list of transition dicts of torch tensors
  (rows of a sampled Batch, or the list as given).

A subclass written our way runs exactly as ding's `Policy` (ding/policy/policy.py), which knows
nothing of this module. DI-engine's path `ding.policy.base_policy` is this module
(ding/compat/paths.py). The data forms are in policy_data.py; the cost of the dicts stays here,
since ding's own policies never pass through this module.
Acting runs under the policy's weights lock, as the learner's update does: DI-engine acts
with the learner's own model, and in async mode the lock keeps a forward from seeing half
of an optimizer step.
"""
import importlib
import logging
from typing import Any, Dict, List, Mapping, Optional, Sequence

import torch

from ding.data.batch import Batch
from ding.compat.policy_data import PolicyOutputs, obs_by_env, transition_list
from ding.policy.policy import Policy as _OurPolicy
from ding.policy.policy import policy_device
from ding.policy.policy_modes import CollectMode, EvalMode, LearnMode
from ding.torch_utils.lr_schedule import ScheduledLR, lr_schedulers_of
from ding.utils.dicts import deep_merge

logger = logging.getLogger('ding.policy')


def is_di_engine_policy(cls: type) -> bool:
    """DI-engine's Policy makes `_process_transition` abstract; ours never defines it."""
    return callable(getattr(cls, '_process_transition', None))


def build_default_model(model_cfg: Mapping, default_model: Any) -> torch.nn.Module:
    """The model of a DI-engine policy given none: the registered model `cfg.model.type`, else
    the one `default_model()` names as `(model type, import_names)`, built from `cfg.model`."""
    from ding.utils.registry import MODEL_REGISTRY
    kwargs = dict(model_cfg or {})
    model_type, import_names = kwargs.pop('type', None), kwargs.pop('import_names', None)
    if model_type is None:
        named = default_model()
        if isinstance(named, torch.nn.Module):  # written our way: it builds the model itself
            return named
        model_type, import_names = named
    failed = []
    for name in import_names or ():
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as err:  # a DI-engine path we may not mirror: the registry can still know the type
            failed.append(f'{name} ({err})')
    try:
        cls = MODEL_REGISTRY.lookup(model_type)
    except KeyError as err:
        hint = f'; could not import {", ".join(failed)}' if failed else ''
        raise KeyError(f'{err.args[0]}{hint}') from None
    from ding.model.from_config import build_model
    return build_model(cls, kwargs)


# --- modes --------------------------------------------------------------------------------
class _Attributes:
    """DI-engine's `get_attribute(name)` asks `_get_<name>()` first, then `_<name>`."""

    def get_attribute(self, name: str) -> Any:
        getter = getattr(self._policy, '_get_' + name, None)
        return getter() if callable(getter) else self._policy.get_attribute(name)

    def set_attribute(self, name: str, value: Any) -> None:
        setattr(self._policy, '_' + name, value)


class _DictActing(_Attributes):
    """`forward(dict)` straight to the hook; `forward_batch(obs)` through the dict form."""
    _hook = ''

    def forward(self, data: Any, **kwargs: Any) -> Any:
        if not isinstance(data, Mapping) or isinstance(data, Batch):
            data = obs_by_env(data)
        p = self._policy
        with p._weights_lock:
            return getattr(p, self._hook)(data, **kwargs)

    def forward_batch(self, obs: Any, **kwargs: Any) -> PolicyOutputs:
        data = obs_by_env(obs)
        return PolicyOutputs(self.forward(data, **kwargs), data)


class DIEngineCollectMode(_DictActing, CollectMode):
    _hook = '_forward_collect'
    transition_keys = ()  # the policy builds its own transitions

    def process_transition(self, obs: Any, output: Mapping[str, Any], timestep: Any) -> Any:
        return self._policy._process_transition(obs, output, timestep)

    def get_train_sample(self, data: Any) -> Any:
        return self._policy._get_train_sample(data)

    def transition_recorder(self, env_num: int) -> Any:
        """What the collectors record for this policy (ding/compat/transitions.py)."""
        from ding.compat.transitions import DIEngineTransitions
        return DIEngineTransitions(self, env_num)

    def worker_actor(self) -> Any:
        raise NotImplementedError(f'{type(self._policy).__name__} is a DI-engine-style policy: it acts in the '
                                  f'main process, not inside env workers')

    def state_dict(self) -> Dict[str, Any]:
        hook = getattr(self._policy, '_state_dict_collect', None)
        return hook() if hook is not None else {}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        hook = getattr(self._policy, '_load_state_dict_collect', None)
        if hook is not None and state:
            hook(state)


class DIEngineEvalMode(_DictActing, EvalMode):
    _hook = '_forward_eval'


class DIEngineLearnMode(_Attributes, LearnMode):

    def forward(self, data: Any) -> Any:
        p = self._policy
        data = transition_list(data)
        with p._weights_lock, p._learn_autocast():
            out = p._forward_learn(data)
            p._after_update()
            p.publish_weights()
        return out

    def reset(self, env_ids: Optional[Sequence[int]] = None) -> None:
        hook = getattr(self._policy, '_reset_learn', None)
        if hook is not None:
            hook(env_ids)

    def info(self) -> str:
        return repr(self._policy)


class Policy(_OurPolicy):
    """ding's Policy; a subclass that defines `_process_transition` runs DI-engine's protocol (above)."""
    _di_engine_protocol = False  # set per subclass

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._di_engine_protocol = is_di_engine_policy(cls)

    def __init__(self, cfg: Mapping, model: Optional[torch.nn.Module] = None,
                 enable_field: Optional[List[str]] = None) -> None:
        if self._di_engine_protocol:
            # what DI-engine's base sets before the subclass's `_init_*` read it
            merged = deep_merge(self.default_config(), cfg)
            self._cuda = policy_device(bool(merged.cuda)).type == 'cuda'
            self._rank = 0
            self._on_policy = bool(merged.get('on_policy', False))
            self._enable_field = list(enable_field or ['learn', 'collect', 'eval'])
            if model is None:
                model = build_default_model(merged.model, self.default_model)
        super().__init__(cfg, model, enable_field)

    def _make_lr_schedule(self) -> Optional[ScheduledLR]:
        if self._di_engine_protocol and self._cfg.learn.get('lr_scheduler') is not None and lr_schedulers_of(self):
            # DI-engine's own policy code reads the key and steps its scheduler
            logger.info('%s runs its own learning-rate scheduler: policy.learn.lr_scheduler is left to it',
                        type(self).__name__)
            return None
        return super()._make_lr_schedule()

    @property
    def learn_mode(self) -> LearnMode:
        return DIEngineLearnMode(self) if self._di_engine_protocol else LearnMode(self)

    @property
    def collect_mode(self) -> CollectMode:
        return DIEngineCollectMode(self) if self._di_engine_protocol else CollectMode(self)

    @property
    def eval_mode(self) -> EvalMode:
        return DIEngineEvalMode(self) if self._di_engine_protocol else EvalMode(self)
