"""The per-step context that middlewares share.

A Context is a dataclass whose fields are the vocabulary the built-in middlewares use.
A middleware may also set a name the class does not declare
(`ctx.my_field = x`); such a name lives for one step, like any field, unless `keep()` carries
it over. Two guards stay:
- typo guard: a new name within edit distance 2 of a declared field (1 for names shorter than
  6 letters, where two edits turn `eps` into `obs`) raises AttributeError with did-you-mean,
  so `ctx.env_stpe = 3` fails at once. A name that is meant, however close, is declared:
  `ctx.declare('env_steps')`, a middleware contract naming it (the task declares those at
  `run()`), or a field of a subclass.
- strict mode: `OnlineRLContext(strict=True)`, or a subclass made with
  `class MyContext(OnlineRLContext, strict=True)`, refuses every undeclared name.
`strict` is a constructor option, not a dataclass field, so positional and keyword
construction, `fields()`, equality and repr see exactly the declared fields.

`renew()` starts the next step: kept names (counters such as `env_step`, and whatever
`keep()` added, custom names included) carry over for the whole run, the rest go back to
their defaults (custom names disappear), and `total_step` grows by one.
"""
import functools
import math
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Dict, FrozenSet, Iterator, Optional, Tuple

from ding.utils.keys import closest, edit_distance

_FIELD_NAMES: Dict[type, FrozenSet[str]] = {}


def field_names(cls: type) -> FrozenSet[str]:
    """Declared field names of a Context class (cached: attribute writes check it every time)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = frozenset(f.name for f in fields(cls))
    return names


@functools.lru_cache(maxsize=None)
def near_miss(cls: type, name: str) -> Optional[str]:
    """The declared field of `cls` that `name` is probably a typo of, or None."""
    limit = min(2, max(1, len(name) // 3))
    candidates = [(edit_distance(name, f), f) for f in field_names(cls) if f != name]
    close = sorted(c for c in candidates if c[0] <= limit)
    return close[0][1] if close else None


class _ContextType(type):
    """Takes the `strict=` option at construction, so that it never becomes a dataclass field."""

    def __call__(cls, *args: Any, strict: Optional[bool] = None, **kwargs: Any) -> 'Context':
        ctx = super().__call__(*args, **kwargs)
        if strict is not None:
            object.__setattr__(ctx, '_strict', bool(strict))
        return ctx


@dataclass
class Context(metaclass=_ContextType):
    """Base context: only `total_step`. Subclasses declare fields and `default_keep`."""
    total_step: int = 0

    default_keep: ClassVar[Tuple[str, ...]] = ()
    strict_default: ClassVar[bool] = False

    def __init_subclass__(cls, strict: Optional[bool] = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if strict is not None:
            cls.strict_default = bool(strict)

    def __post_init__(self) -> None:
        self._kept_set()

    def _kept_set(self) -> set:
        """The kept names, made on first use: a subclass whose own
        `__post_init__` calls `self.keep(...)` without `super().__post_init__()` still works."""
        kept = self.__dict__.get('_kept')
        if kept is None:
            kept = set(self.default_keep)
            object.__setattr__(self, '_kept', kept)
        return kept

    def _declared_set(self) -> set:
        declared = self.__dict__.get('_declared')
        if declared is None:
            declared = set()
            object.__setattr__(self, '_declared', declared)
        return declared

    @property
    def strict(self) -> bool:
        return self.__dict__.get('_strict', self.strict_default)

    def __setattr__(self, name: str, value: Any) -> None:
        # the cache read inline: a ctx's construction alone sets every field through here
        if name not in (_FIELD_NAMES.get(type(self)) or field_names(type(self))):
            self._check_new_name(name)
        object.__setattr__(self, name, value)

    def _check_new_name(self, name: str) -> None:
        """Raise unless `name` may be set as a custom (undeclared) name on this ctx."""
        cls = type(self)
        if self.strict:
            raise AttributeError(self._unknown(name))
        if name in self._declared_set():
            return
        if hasattr(cls, name):  # a method or property, e.g. ctx.keep = ...
            raise AttributeError(f'{cls.__name__}.{name} is not a field and cannot be assigned')
        typo_of = near_miss(cls, name)
        if typo_of is not None:
            raise AttributeError(
                f'{cls.__name__} has no field {name!r} (did you mean {typo_of!r}?); if {name!r} is meant as a '
                f'new field, declare it first: ctx.declare({name!r}), a middleware contract naming it, or a '
                f'field in a subclass of {cls.__name__}'
            )

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails; never touch instance state here (unpickling).
        if name.startswith('__'):
            raise AttributeError(name)
        if self.__dict__.get('_strict', type(self).strict_default):
            raise AttributeError(self._unknown(name))
        typo_of = near_miss(type(self), name)
        hint = f' (did you mean {typo_of!r}?)' if typo_of else ''
        raise AttributeError(f'{type(self).__name__} has no field {name!r}{hint}, and no custom name {name!r} '
                             f'was set in this step')

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

    def has_attr(self, name: str) -> bool:
        """`hasattr(ctx, name)` as a method; part of the public Context API, so kept."""
        return hasattr(self, name)

    def declare(self, *names: str) -> None:
        """Accept these custom names even when close to a declared field (not in strict mode)."""
        for name in names:
            if name in field_names(type(self)):
                continue
            if self.strict:
                raise AttributeError(self._unknown(name) + f' (strict {type(self).__name__} takes no custom names)')
            if hasattr(type(self), name):
                raise AttributeError(f'{type(self).__name__}.{name} is a method or property, not a field name')
            self._declared_set().add(name)

    @property
    def declared_names(self) -> FrozenSet[str]:
        """The class's fields and the custom names declared on this ctx (they last the run)."""
        return field_names(type(self)) | frozenset(self._declared_set())

    @property
    def custom_names(self) -> FrozenSet[str]:
        """Undeclared names set on this ctx in this step (kept ones included)."""
        return frozenset(n for n in self.__dict__ if not n.startswith('_') and n not in field_names(type(self)))

    def keep(self, *names: str) -> None:
        """Carry these names over every later `renew()` of this run (custom names too)."""
        for name in names:
            if name not in field_names(type(self)):
                self._check_new_name(name)
        self._kept_set().update(names)

    @property
    def kept_names(self) -> FrozenSet[str]:
        return frozenset(self._kept_set())

    def iter_kept_names(self) -> Iterator[str]:
        """The kept names without `kept_names`' copy (async_mode publishes them around each call);
        do not `keep()` while iterating."""
        return iter(self._kept_set())

    def blank(self) -> 'Context':
        """A fresh ctx of the same class and options (strict, declared names, kept names)."""
        new = type(self)()
        for option in ('_strict', '_declared'):
            if option in self.__dict__:
                value = self.__dict__[option]
                object.__setattr__(new, option, set(value) if isinstance(value, set) else value)
        object.__setattr__(new, '_kept', set(self._kept_set()))
        return new

    def renew(self) -> 'Context':
        """The next step's context: kept names carried over, the rest reset, total_step + 1.
        A kept custom name that was never set is skipped."""
        new = self.blank()
        for name in self._kept_set():
            if name in field_names(type(self)) or name in self.__dict__:
                object.__setattr__(new, name, getattr(self, name))
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
    env_restarts: int = 0  # collector env (worker) restarts after env faults
    dropped_episodes: int = 0  # episodes those restarts dropped (never written as transitions)
    # the evaluator's own: a kept field has one writer stage in async mode (async_pipeline.py)
    eval_env_restarts: int = 0
    eval_dropped_episodes: int = 0

    default_keep: ClassVar[Tuple[str, ...]] = (
        'env_step', 'env_episode', 'train_iter', 'last_eval_iter', 'last_eval_value', 'wandb_url', 'env_restarts',
        'dropped_episodes', 'eval_env_restarts', 'eval_dropped_episodes'
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
    eval_env_restarts: int = 0  # evaluator env restarts after env faults
    eval_dropped_episodes: int = 0  # evaluation episodes those restarts dropped

    default_keep: ClassVar[Tuple[str, ...]] = (
        'trained_env_step', 'train_iter', 'last_eval_iter', 'last_eval_value', 'wandb_url', 'eval_env_restarts',
        'eval_dropped_episodes'
    )
