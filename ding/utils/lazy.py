"""Lazy package exports: `from ding.policy import DQNPolicy` imports only `ding.policy.dqn`.

Keeps `import ding.x` cheap and lets each submodule be written and tested on its own.
A package declares `_EXPORTS = {name: submodule}` and calls `lazy_exports(__name__, _EXPORTS)`.
A value starting with `ding.` is a whole module path: a public name defined elsewhere
(the shims in ding/compat/).
"""
import importlib
import sys
from typing import Callable, Dict, List, Tuple


def lazy_exports(package: str, exports: Dict[str, str]) -> Tuple[Callable, Callable]:
    module = sys.modules[package]
    module.__lazy_modules__ = sorted(set(exports.values()))

    def __getattr__(name: str):
        if name not in exports:
            raise AttributeError(f'module {package!r} has no attribute {name!r}')
        value = getattr(importlib.import_module(module_path(package, exports[name])), name)
        setattr(module, name, value)
        return value

    def __dir__() -> List[str]:
        return sorted(set(vars(module)) | set(exports))

    return __getattr__, __dir__


def module_path(package: str, module: str) -> str:
    """A submodule's name under `package`, or a whole module path (`ding.`...) as it is."""
    return module if module.startswith('ding.') else f'{package}.{module}'


def import_all(package: str) -> None:
    """Import every submodule a lazy package declares (so their registrations run)."""
    mod = importlib.import_module(package)
    for sub in getattr(mod, '__lazy_modules__', ()):
        importlib.import_module(module_path(package, sub))
