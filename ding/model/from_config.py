"""`build_model(cls, cfg.policy.model)`: a model from its config section, with a config error
(not a TypeError from deep inside `__init__`) for a misspelt or missing argument, or a value
whose type the constructor's annotation refuses (`int`, `float`, `bool`, `str`, a sequence,
or `Optional` of one; unions of several are not checked)."""
import collections.abc
import inspect
import typing
from typing import Any, Mapping, Optional, Tuple

from ding.config.validate import ConfigKeyError
from ding.utils.keys import closest


def check_model_kwargs(cls: type, kwargs: Mapping[str, Any], section: str = 'policy.model') -> None:
    """ConfigKeyError naming each key `cls.__init__` does not take (with the closest one) and
    each required argument the section lacks."""
    params = inspect.signature(cls).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return  # takes any keyword; its own checks apply
    named = [n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    problems = [f'cfg.{section}.{key}{closest(str(key), named)} [{cls.__name__} takes: {", ".join(named)}]'
                for key in kwargs if key not in named]
    problems += [f'cfg.{section}.{name} is required by {cls.__name__}' for name in named
                 if params[name].default is inspect.Parameter.empty and name not in kwargs]
    if problems:
        if len(problems) == 1:
            raise ConfigKeyError(f'bad model config key {problems[0]}')
        raise ConfigKeyError('bad model config keys:\n  ' + '\n  '.join(problems))


_PLAIN_KINDS = {int: 'int', float: 'real', bool: 'bool', str: 'str', list: 'list', tuple: 'list'}


def annotation_kind(annotation: Any) -> Optional[Tuple[str, bool]]:
    """(schema kind, None allowed) of a constructor annotation, or None when it is not checked."""
    optional = False
    if typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        if len(args) != 1:
            return None
        annotation = args[0]
    if annotation in _PLAIN_KINDS:
        return _PLAIN_KINDS[annotation], optional
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, collections.abc.Sequence):
        return 'list', optional
    return None


def check_model_values(cls: type, kwargs: Mapping[str, Any], section: str = 'policy.model') -> None:
    """ConfigValueError for the first argument whose value the annotation's type refuses."""
    from ding.config.schema import ConfigValueError, Key, problem
    params = inspect.signature(cls).parameters
    for name, value in kwargs.items():
        param = params.get(name)
        kind = annotation_kind(param.annotation) if param is not None else None
        if kind is None:
            continue
        line = problem(f'{section}.{name}', value, Key(None, kind[0], optional=kind[1]))
        if line:
            raise ConfigValueError(f'{line} ({cls.__name__} takes {name}: {_annotation_text(param.annotation)})')


def _annotation_text(annotation: Any) -> str:
    if typing.get_origin(annotation) is None and hasattr(annotation, '__name__'):
        return annotation.__name__
    return str(annotation).replace('typing.', '')


def build_model(cls: type, kwargs: Mapping[str, Any], section: str = 'policy.model') -> Any:
    check_model_kwargs(cls, kwargs, section)
    check_model_values(cls, kwargs, section)
    return cls(**kwargs)
