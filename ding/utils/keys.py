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


def edit_distance(a: str, b: str) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) turning `a` into `b`.

    The swap counts as one edit because `env_stpe` is one slip of the fingers from `env_step`.
    """
    prev2, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if prev2 is not None and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[len(b)]
