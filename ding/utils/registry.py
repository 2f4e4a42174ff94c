"""Registries map a config's `type` string to a class. They are a convenience for configs:
every registered class is also importable by its module path."""
from typing import Any, Callable, Dict, Optional

from ding.utils.keys import closest


class Registry(dict):

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def register(self, name: str, obj: Any = None, force: bool = False) -> Callable:
        """Use as `@REGISTRY.register('name')` or `REGISTRY.register('name', cls)`."""

        def add(o: Any) -> Any:
            if name in self and self[name] is not o and not force:
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
            raise KeyError(f'unknown {self.kind} type {name!r}{closest(name, self)}; known: {sorted(self)}')
        return self[name]


POLICY_REGISTRY = Registry('policy')
MODEL_REGISTRY = Registry('model')
ENV_REGISTRY = Registry('env')
ENV_MANAGER_REGISTRY = Registry('env_manager')
BUFFER_REGISTRY = Registry('buffer')
REWARD_MODEL_REGISTRY = Registry('reward_model')
