"""Catch misspelt config keys before a run starts.

Every key a user writes must exist in the merged class defaults, except below an *open*
section: one whose defaults are an empty mapping (e.g. `policy.model`, whose keys are the
model's constructor arguments), or one listed in `open_paths` because its class declares
no default config (an env with no `default_config()` accepts any env keys).
"""
from typing import Iterable, List, Mapping, Optional, Tuple

from ding.utils.keys import closest


class ConfigKeyError(KeyError):
    """A KeyError whose message prints as written (KeyError quotes and escapes its message)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ''


def unknown_keys(user: Mapping, defaults: Mapping, open_paths: Iterable[str] = (), section: str = '') -> List[str]:
    """One line per key of `user` that `defaults` does not declare, with the closest valid key
    (or the same key elsewhere in its top-level section) when there is one.
    Below an open section new keys are accepted; keys it does declare are still checked."""
    return [message for _, message in unknown_key_paths(user, defaults, open_paths, section)]


def unknown_key_paths(user: Mapping, defaults: Mapping, open_paths: Iterable[str] = (),
                      section: str = '', top: Optional[Mapping] = None) -> List[Tuple[str, str]]:
    """`unknown_keys` as (dotted path, message) pairs. `top`: the defaults of the top-level
    section being walked (e.g. all of `policy`), searched for a key of the same name elsewhere."""
    open_paths = set(open_paths)
    is_open = section in open_paths or not defaults
    problems = []
    for key, value in user.items():
        path = f'{section}.{key}' if section else str(key)
        if key not in defaults:
            if not is_open:
                valid = ', '.join(sorted(map(str, defaults)))
                hint = same_name_elsewhere(str(key), section, top) or closest(str(key), map(str, defaults))
                problems.append((path, f'cfg.{path}{hint} '
                                       f'[valid keys under cfg{"." + section if section else ""}: {valid}]'))
            continue
        default = defaults[key]
        if isinstance(default, Mapping) and isinstance(value, Mapping):
            problems += unknown_key_paths(value, default, open_paths, path, default if not section else top)
    return problems  # a scalar where a section is declared: the value check's (ding/config/schema.py)


def same_name_elsewhere(key: str, section: str, top: Optional[Mapping]) -> str:
    """' (did you mean ...?)' naming where in the top-level section `top` a key of this name is
    declared (e.g. SAC's discount factor is policy.learn.discount_factor), or ''."""
    if not top or not section:
        return ''
    root = section.split('.')[0]
    found = [p for p in _leaf_paths(top, root) if p.rsplit('.', 1)[-1] == key]
    return f' (did you mean {"cfg." + found[0]!r}?)' if found else ''


def _leaf_paths(tree: Mapping, prefix: str) -> List[str]:
    out = []
    for k, v in tree.items():
        path = f'{prefix}.{k}'
        out += _leaf_paths(v, path) if isinstance(v, Mapping) and v else [path]
    return out


def check_keys(user: Mapping, defaults: Mapping, open_paths: Iterable[str] = ()) -> None:
    """KeyError listing every unknown key of `user` by its full dotted path, but for those the
    installed filter accepts (ding/utils/protocol_adapters.py: a known key that ding does
    not use gets one warning instead)."""
    from ding.utils.protocol_adapters import refused_keys
    policy_type = (defaults.get('policy') or {}).get('type')
    problems = refused_keys(unknown_key_paths(user, defaults, open_paths), policy_type)
    if problems:
        if len(problems) == 1:  # one line, as `ding` prints every user mistake
            raise ConfigKeyError(f'unknown config key {problems[0]}')
        raise ConfigKeyError('unknown config keys:\n  ' + '\n  '.join(problems))
