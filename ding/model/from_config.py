"""`build_model(cls, cfg.policy.model)`: a model from its config section, with a config error
(not a TypeError from deep inside `__init__`) for a misspelt or missing argument."""
import inspect
from typing import Any, Mapping

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
        head = 'bad model config' + (' keys' if len(problems) > 1 else ' key')
        raise ConfigKeyError(head + ':\n  ' + '\n  '.join(problems))


def build_model(cls: type, kwargs: Mapping[str, Any], section: str = 'policy.model') -> Any:
    check_model_kwargs(cls, kwargs, section)
    return cls(**kwargs)
