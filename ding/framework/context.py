"""The per-step context that middlewares share.

A Context is a dataclass: its fields are the whole vocabulary middlewares may use, so a typo
(`ctx.env_stpe = 3`) fails at once with the closest declared name instead of silently creating
a new attribute. Extend it by subclassing. `renew()` starts the next step: fields named in
`keep()` (counters such as `env_step`) carry over for the whole run, the rest go back to their
defaults, and `total_step` grows by one.
"""
import math
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Dict, FrozenSet, Tuple

from ding.utils.keys import closest

_FIELD_NAMES: Dict[type, FrozenSet[str]] = {}


def field_names(cls: type) -> FrozenSet[str]:
    """Declared field names of a Context class (cached: attribute writes check it every time)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = frozenset(f.name for f in fields(cls))
    return names


@dataclass
class Context:
    """Base context: only `total_step`. Subclasses declare fields and `default_keep`."""
    total_step: int = 0

    default_keep: ClassVar[Tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, '_kept', set(self.default_keep))

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in field_names(type(self)):
            raise AttributeError(self._unknown(name))
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails; never touch instance state here (unpickling).
        if name.startswith('__'):
            raise AttributeError(name)
        raise AttributeError(self._unknown(name))

    def __getitem__(self, key: Any) -> Any:
        raise TypeError(f'{type(self).__name__} fields are attributes: use ctx.{key} instead of ctx[{key!r}]')

    def __setitem__(self, key: Any, value: Any) -> None:
        raise TypeError(f'{type(self).__name__} fields are attributes: use ctx.{key} = value, not ctx[{key!r}] = value')

    @classmethod
    def _unknown(cls, name: str) -> str:
        return (
            f'{cls.__name__} has no field {name!r}{closest(name, field_names(cls))}; '
            f'subclass {cls.__name__} to add fields'
        )

    def keep(self, *names: str) -> None:
        """Carry these fields over every later `renew()` of this run."""
        for name in names:
            if name not in field_names(type(self)):
                raise AttributeError(self._unknown(name))
        self._kept.update(names)

    @property
    def kept_names(self) -> FrozenSet[str]:
        return frozenset(self._kept)

    def renew(self) -> 'Context':
        """The next step's context: kept fields carried over, the rest reset, total_step + 1."""
        new = type(self)()
        for name in self._kept:
            object.__setattr__(new, name, getattr(self, name))
        object.__setattr__(new, '_kept', set(self._kept))
        new.total_step = self.total_step + 1
        return new


@dataclass
class OnlineRLContext(Context):
    """Fields of an online pipeline (collect -> push -> fetch -> train -> evaluate)."""
    env_step: int = 0
    env_episode: int = 0
    train_iter: int = 0
    train_data: Any = None
    train_output: Any = None
    collect_kwargs: dict = field(default_factory=dict)
    obs: Any = None
    action: Any = None
    inference_output: Any = None
    trajectories: Any = None
    episodes: Any = None
    trajectory_end_idx: list = field(default_factory=list)
    eval_value: float = -math.inf
    last_eval_iter: int = -1
    last_eval_value: float = -math.inf
    eval_output: dict = field(default_factory=dict)
    info_for_logging: dict = field(default_factory=dict)
    wandb_url: str = ''

    default_keep: ClassVar[Tuple[str, ...]] = (
        'env_step', 'env_episode', 'train_iter', 'last_eval_iter', 'last_eval_value', 'wandb_url'
    )


@dataclass
class OfflineRLContext(Context):
    """Fields of an offline pipeline (fetch from a dataset -> train -> evaluate)."""
    trained_env_step: int = 0
    train_epoch: int = 0
    train_iter: int = 0
    train_data: Any = None
    train_output: Any = None
    eval_value: float = -math.inf
    last_eval_iter: int = -1
    last_eval_value: float = -math.inf
    eval_output: dict = field(default_factory=dict)
    info_for_logging: dict = field(default_factory=dict)
    wandb_url: str = ''

    default_keep: ClassVar[Tuple[str, ...]] = (
        'trained_env_step', 'train_iter', 'last_eval_iter', 'last_eval_value', 'wandb_url'
    )
