"""Registries map a config's `type` string to a class. They are a convenience for configs:
every registered class is also importable by its module path."""
import importlib
from typing import Any, Callable, Dict, Optional, Tuple

from ding.utils.keys import closest


class Registry(dict):

    def __init__(self, kind: str, packages: Tuple[str, ...] = ()) -> None:
        super().__init__()
        self.kind = kind
        # Lazy packages whose submodules register here; imported on the first lookup miss.
        self.packages = packages
        self.lazy = {}  # type name -> module that registers it, declared by the package

    def declare(self, package: str, types: Dict[str, str]) -> None:
        """Say which submodule of `package` (or which dotted module) registers each type name
        (imported on lookup)."""
        from ding.utils.lazy import module_path
        self.lazy.update({name: module_path(package, module) for name, module in types.items()})

    def register(self, name: str, obj: Any = None, force: bool = False) -> Callable:
        """Use as `@REGISTRY.register('name')` or `REGISTRY.register('name', cls)`."""

        def add(o: Any) -> Any:
            if name in self and self[name] is not o and not force and not _same_definition(self[name], o):
                raise KeyError(f'{self.kind} {name!r} is already registered as {self[name]}')
            self[name] = o
            return o

        return add(obj) if obj is not None else add

    def get(self, name: str, default: Optional[Any] = None) -> Any:  # noqa: D401
        return super().get(name, default)

    def build(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self.lookup(name)(*args, **kwargs)

    def lookup(self, name: str) -> Any:
        if name not in self:
            for package in self.packages:
                importlib.import_module(package)
            if name in self.lazy:
                importlib.import_module(self.lazy[name])
        if name not in self:
            known = sorted(set(self) | set(self.lazy))
            raise KeyError(f'unknown {self.kind} type {name!r}{closest(name, known)}; known: {known}')
        return self[name]


def _same_definition(old: Any, new: Any) -> bool:
    """The same class or function defined again (its module imported a second time, e.g. after
    a test removed it from sys.modules): the new definition replaces the old one."""
    key = lambda o: (getattr(o, '__module__', None), getattr(o, '__qualname__', None))  # noqa: E731
    return key(old) == key(new) and key(old) != (None, None)


POLICY_REGISTRY = Registry('policy', ('ding.policy', ))
MODEL_REGISTRY = Registry('model', ('ding.model', ))
ENV_REGISTRY = Registry('env', ('ding.envs', ))
ENV_MANAGER_REGISTRY = Registry('env_manager', ('ding.envs', ))
BUFFER_REGISTRY = Registry('buffer', ('ding.data', ))
REWARD_MODEL_REGISTRY = Registry('reward_model', ('ding.reward_model', ))
ENV_WRAPPER_REGISTRY = Registry('env_wrapper')
DATASET_REGISTRY = Registry('dataset')
# The other registries, which nothing of ding reads, are in ding/compat/registries.py.
