"""Helpers for config keys: follow dotted paths, suggest the closest valid key."""
import difflib
from typing import Any, Iterable, Mapping


def closest(key: str, choices: Iterable[str]) -> str:
    """' Did you mean ...?' text for a wrong key, or '' when nothing is close."""
    match = difflib.get_close_matches(key, list(choices), n=1, cutoff=0.5)
    return f" (did you mean {match[0]!r}?)" if match else ''


def lookup(cfg: Any, dotted: str) -> Any:
    """Follow a dotted key through nested mappings; KeyError naming the missing part."""
    node = cfg
    walked = []
    for part in dotted.split('.'):
        if not isinstance(node, Mapping) or part not in node:
            where = '.'.join(walked) or 'cfg'
            choices = node.keys() if isinstance(node, Mapping) else ()
            raise KeyError(f'{where} has no key {part!r}{closest(part, choices)}')
        node = node[part]
        walked.append(part)
    return node
