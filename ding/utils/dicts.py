"""Nested-dict helpers used by class default configs and `compile_config`."""
import copy
from typing import Mapping

from easydict import EasyDict


def deep_merge(base: Mapping, override: Mapping) -> EasyDict:
    """A new EasyDict: `base` with `override` merged in recursively; override wins."""
    out = EasyDict(copy.deepcopy(dict(base)))
    for k, v in (override or {}).items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def deep_merge_dicts(original: Mapping, new_dict: Mapping) -> EasyDict:
    """`deep_merge` under another public name (`new_dict` wins)."""
    return deep_merge(original, new_dict)
