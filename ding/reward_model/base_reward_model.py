"""`BaseRewardModel`: what a reward model offers a pipeline.

- `collect_data(data)`: keep freshly collected transitions to train on;
- `train()`: update the model on what it has kept;
- `estimate(data) -> data`: the same transitions with the reward rewritten (or an intrinsic
  reward added); the input, which may be rows of the replay buffer, is never modified;
- `clear_data()`, `state_dict()` / `load_state_dict()`, `save(path, name)`.

In a pipeline: `trainer(cfg, reward_model)` after the collector feeds and trains it,
`reward_estimator(cfg, reward_model)` (or `OffPolicyLearner(..., reward_model=...)`) rewrites
each sampled batch. Config: `cfg.reward_model.type` names a class in `REWARD_MODEL_REGISTRY`.
"""
import copy
import os
from abc import ABC, abstractmethod
from typing import Any, Dict, Optional

from easydict import EasyDict

from ding.utils.class_config import merged_class_config
from ding.utils.registry import REWARD_MODEL_REGISTRY


class BaseRewardModel(ABC):
    config: Dict[str, Any] = {}
    default_config = classmethod(merged_class_config)

    @abstractmethod
    def estimate(self, data: Any) -> Any:
        """`data` with its reward rewritten, as a new object (the input is left as it was)."""

    @abstractmethod
    def train(self) -> None:
        """Update the model on the data kept by `collect_data`."""

    @abstractmethod
    def collect_data(self, data: Any) -> None:
        """Keep collected transitions (a Batch or a list of transitions) to train on."""

    @abstractmethod
    def clear_data(self) -> None:
        """Forget the kept transitions."""

    def load_expert_data(self, data: Any = None) -> None:
        """Inverse-RL models load their demonstrations here; others ignore it."""

    def reward_deepcopy(self, train_data: Any) -> Any:
        """A list of the transitions whose reward is a private copy, so rewriting it leaves the
        replay buffer's rows as they were (a helper for list-of-dict data)."""
        return [{k: (copy.deepcopy(v) if k == 'reward' else v) for k, v in dict(row).items()} for row in train_data]

    def state_dict(self) -> Dict[str, Any]:
        return {}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        pass

    def save(self, path: Optional[str] = None, name: str = 'best') -> str:
        """Writes `<path>/reward_model/ckpt/ckpt_<name>.pth.tar` atomically; returns the file."""
        from ding.utils.fileio import atomic_torch_save
        if path is None:
            path = getattr(self, 'cfg', {}).get('exp_name', '.')
        target = os.path.join(path, 'reward_model', 'ckpt', f'ckpt_{name}.pth.tar')
        os.makedirs(os.path.dirname(target), exist_ok=True)
        atomic_torch_save(self.state_dict(), target)
        return target


def get_reward_model_cls(cfg: Any) -> type:
    """The class `cfg.type` names, after importing `cfg.import_names`."""
    import importlib
    for name in cfg.get('import_names', None) or ():
        importlib.import_module(name)
    return REWARD_MODEL_REGISTRY.lookup(cfg.type)


def create_reward_model(cfg: Any, device: str = 'cpu', tb_logger: Any = None) -> BaseRewardModel:
    """Build the reward model `cfg.type` (or `cfg.reward_model.type`) names from that config.
    Models with `takes_whole_config` (T-REX) get the whole config, the others
    its `reward_model` part."""
    whole = EasyDict(copy.deepcopy(dict(cfg)))
    cfg = EasyDict(whole.reward_model) if 'reward_model' in whole else whole
    if not cfg.get('type'):
        raise ValueError('create_reward_model: the config has no reward model `type` (e.g. type="rnd")')
    cls = get_reward_model_cls(cfg)
    if getattr(cls, 'takes_whole_config', False):
        if 'reward_model' not in whole:
            raise ValueError(f'create_reward_model: {cls.__name__} needs the whole config (with exp_name, '
                             f'policy and reward_model), not only its reward_model part')
        return cls(whole, device=device, tb_logger=tb_logger)
    return cls(cfg, device=device, tb_logger=tb_logger)
