"""Typed config keys, declared where they are read: in the class's own `config` dict.

    config = dict(
        discount_factor=prob(0.99),                  # a number in [0, 1]
        learn=dict(batch_size=positive_int(64),      # an int >= 1
                   learning_rate=positive(1e-3),     # a number > 0
                   nonfinite=choice('raise', 'raise', 'warn'),
                   ignore_done=False),               # no marker: the type is the default's (bool)
    )

A marker holds the default and its type and range; `default_config()` still returns plain
values (`plain`), and `declared(cls)` recovers the markers for checking. A key without a marker
gets its type from its default: int -> an int, float -> a number (ints accepted), bool, str,
list (a tuple too), None -> anything. `not_read()` in a subclass removes an inherited key that
the subclass does not read, so that setting it is refused like a misspelling.

`check_values(user, declared)` gives, for each user value of the wrong type or out of range,
one line: `policy.learn.batch_size must be a positive int, got -1`. `compile_config` raises
the first as `ConfigValueError` (a ValueError); the `ding` command prints it as one line.
"""
import copy
import math
from typing import Any, Iterable, List, Mapping, Optional, Sequence

from easydict import EasyDict

_KINDS = ('int', 'real', 'bool', 'str', 'list', 'any')


class ConfigValueError(ValueError):
    """A config value of the wrong type or out of its declared range; the message is one line."""


class Key:
    """A declared config key: its default, kind (one of _KINDS) and optional range or choices."""
    __slots__ = ('default', 'kind', 'min', 'max', 'above', 'choices', 'optional', 'explicit')

    def __init__(self, default: Any, kind: Optional[str] = None, *, min: Optional[float] = None,
                 max: Optional[float] = None, above: Optional[float] = None,
                 choices: Optional[Sequence[Any]] = None, optional: Optional[bool] = None,
                 explicit: bool = True) -> None:
        kind = kind or kind_of(default)
        if kind not in _KINDS:
            raise ValueError(f'config key kind must be one of {_KINDS}, got {kind!r}')
        self.default, self.kind, self.min, self.max, self.above = default, kind, min, max, above
        self.choices = tuple(choices) if choices is not None else None
        self.optional = default is None if optional is None else optional
        self.explicit = explicit

    def with_default(self, default: Any) -> 'Key':
        """This key's type and range with another default (a subclass overriding the value); a
        None default makes it optional, and an untyped key takes the new default's type."""
        kind = self.kind
        if not self.explicit and default is not None and not (kind == 'real' and kind_of(default) == 'int'):
            kind = kind_of(default)  # an int default over a float one still takes floats
        return Key(default, kind, min=self.min, max=self.max, above=self.above, choices=self.choices,
                   optional=self.optional or default is None, explicit=self.explicit)

    def __repr__(self) -> str:
        return f'Key({self.default!r}, {describe(self)!r})'


class _NotRead:
    """`not_read()`: the subclass does not read this inherited key."""

    def __repr__(self) -> str:
        return 'not_read()'


NOT_READ = _NotRead()


def key(default: Any, kind: Optional[str] = None, **bounds: Any) -> Key:
    return Key(default, kind, **bounds)


def head_width(default: int) -> Key:
    """A model head's hidden size: one width, or a list of widths (ding/model/common.py
    `head_widths` checks the value when the model is built)."""
    return Key(default, 'any')


def positive_int(default: Optional[int], **kw: Any) -> Key:
    return Key(default, 'int', min=1, **kw)


def non_negative_int(default: Optional[int], **kw: Any) -> Key:
    return Key(default, 'int', min=0, **kw)


def positive(default: Optional[float], **kw: Any) -> Key:
    """A real number > 0 (learning rates, timeouts)."""
    return Key(default, 'real', above=0, **kw)


def non_negative(default: Optional[float], **kw: Any) -> Key:
    return Key(default, 'real', min=0, **kw)


def prob(default: Optional[float], **kw: Any) -> Key:
    """A real number in [0, 1] (discount factors, epsilons, polyak rates)."""
    return Key(default, 'real', min=0, max=1, **kw)


def choice(default: Any, *choices: Any, **kw: Any) -> Key:
    return Key(default, kind_of(choices[0]), choices=choices, **kw)


def not_read() -> _NotRead:
    return NOT_READ


# bool before int: True is an int too
_KIND_OF_TYPE = ((bool, 'bool'), (int, 'int'), (float, 'real'), (str, 'str'), ((list, tuple), 'list'))


def kind_of(value: Any) -> str:
    for types, kind in _KIND_OF_TYPE:
        if isinstance(value, types):
            return kind
    return 'any'


# --- declaration trees: nested dicts whose leaves may be Key / NOT_READ -------------------------

def plain(tree: Any) -> Any:
    """`tree` with every Key replaced by its default and every `not_read()` key left out."""
    if isinstance(tree, Key):
        return tree.default
    if isinstance(tree, Mapping):
        return {k: plain(v) for k, v in tree.items() if v is not NOT_READ}
    return tree


def as_key(value: Any) -> Key:
    return value if isinstance(value, Key) else Key(value, explicit=False)


def merge(base: Mapping, over: Mapping) -> dict:
    """Declaration tree `over` merged into `base`: a plain value over a Key keeps the Key's type
    with the new default; `not_read()` removes the key; mappings merge key by key."""
    out = dict(base)
    for k, v in (over or {}).items():
        old = out.get(k)
        if v is NOT_READ:
            out.pop(k, None)
        elif isinstance(v, Mapping) and isinstance(old, Mapping):
            out[k] = merge(old, v)
        elif k in out and not isinstance(old, Mapping) and not isinstance(v, (Key, Mapping)):
            out[k] = as_key(old).with_default(v)
        else:
            out[k] = v
    return out


def class_tree(cls: type) -> dict:
    """The `config` dicts of `cls` and its bases merged as declarations (markers kept)."""
    tree: dict = {}
    for klass in reversed(cls.__mro__):
        declared = vars(klass).get('config')
        if isinstance(declared, Mapping):
            tree = merge(tree, declared)
    return tree


def class_defaults(cls: Any) -> Optional[EasyDict]:
    """`cls.default_config()`, else a copy of a `cls.config` mapping, else None (declares nothing)."""
    if cls is None:
        return None
    fn = getattr(cls, 'default_config', None)
    if callable(fn):
        return EasyDict(fn())
    declared = getattr(cls, 'config', None)
    return EasyDict(copy.deepcopy(plain(declared))) if isinstance(declared, Mapping) else None


def declared(cls: Any) -> Optional[dict]:
    """The declarations of `cls`'s config keys: the shape and defaults of `cls.default_config()`
    (which may drop or add keys), typed by the markers of the `config` dicts up its MRO; None
    when the class declares no config."""
    defaults = class_defaults(cls)
    if defaults is None:
        return None
    return overlay(defaults, class_tree(cls) if isinstance(cls, type) else {})


def overlay(defaults: Mapping, marks: Mapping) -> dict:
    """Declarations with the keys and defaults of `defaults` and the types of `marks`."""
    out = {}
    for k, v in defaults.items():
        mark = marks.get(k) if isinstance(marks, Mapping) else None
        if isinstance(v, Mapping):
            out[k] = overlay(v, mark if isinstance(mark, Mapping) else {})
        elif isinstance(mark, Key):
            out[k] = mark.with_default(v) if v != mark.default else mark
        else:
            out[k] = v
    return out


# --- checking ------------------------------------------------------------------------------

def describe(k: Key) -> str:
    """What a valid value is, e.g. 'a positive int', 'a number in [0, 1]'."""
    if k.choices is not None:
        text = 'one of ' + ', '.join(repr(c) for c in k.choices)
    elif k.kind in ('int', 'real'):
        a_noun = 'an int' if k.kind == 'int' else 'a number'
        if k.kind == 'int' and k.min == 1 and k.max is None:
            text = 'a positive int'
        elif k.min is not None and k.max is not None:
            text = f'{a_noun} in [{k.min:g}, {k.max:g}]'
        elif k.above is not None:
            text = f'{a_noun} > {k.above:g}'
        elif k.min is not None:
            text = f'{a_noun} >= {k.min:g}'
        elif k.max is not None:
            text = f'{a_noun} <= {k.max:g}'
        else:
            text = a_noun
    else:
        text = {'bool': 'true or false', 'str': 'a string', 'list': 'a list', 'any': 'any value'}[k.kind]
    return text + (' or null' if k.optional and k.kind != 'any' else '')


def _type_ok(k: Key, value: Any) -> bool:
    if k.kind == 'any':
        return True
    if k.kind == 'bool':
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if k.kind == 'int':  # 1e6 written for a million is an int; 64.5 is not
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if k.kind == 'real':
        return isinstance(value, (int, float)) or (hasattr(value, 'item') and getattr(value, 'ndim', 1) == 0)
    if k.kind == 'str':
        return isinstance(value, str)
    return isinstance(value, (list, tuple))


def _range_ok(k: Key, value: Any) -> bool:
    if k.choices is not None:
        return value in k.choices
    if k.kind not in ('int', 'real'):
        return True
    value = float(value)
    if math.isnan(value):
        return False
    return ((k.min is None or value >= k.min) and (k.max is None or value <= k.max)
            and (k.above is None or value > k.above))


def problem(path: str, value: Any, k: Key) -> Optional[str]:
    """One line when `value` is not valid for `k`, else None."""
    if value is None and k.optional:
        return None
    if _type_ok(k, value) and _range_ok(k, value):
        return None
    return f'{path} must be {describe(k)}, got {_shown(value)}'


def _shown(value: Any) -> str:
    text = repr(value) if not isinstance(value, Mapping) else f'a mapping {dict(value)!r}'
    return text if len(text) <= 60 else text[:57] + '...'


def check_values(user: Mapping, decl: Mapping, open_paths: Iterable[str] = (), section: str = '') -> List[str]:
    """One line per value of `user` that its declaration refuses (wrong type, out of range, a
    scalar where a section is declared). Keys `decl` does not declare are the key check's."""
    problems = []
    for name, value in user.items():
        path = f'{section}.{name}' if section else str(name)
        if name not in decl:
            continue
        d = decl[name]
        if isinstance(d, Mapping):
            if isinstance(value, Mapping):
                problems += check_values(value, d, open_paths, path)
            elif d and path not in open_paths:
                problems.append(f'{path} must be a mapping, got {_shown(value)}')
        elif isinstance(value, Mapping):
            if as_key(d).kind != 'any':
                problems.append(f'{path} must be {describe(as_key(d))}, got {_shown(value)}')
        else:
            line = problem(path, value, as_key(d))
            if line:
                problems.append(line)
    return problems


def raise_for_values(user: Mapping, decl: Mapping, open_paths: Iterable[str] = ()) -> None:
    problems = check_values(user, decl, open_paths)
    if problems:
        more = f' (and {len(problems) - 1} more: {"; ".join(problems[1:])})' if len(problems) > 1 else ''
        raise ConfigValueError(problems[0] + more)
