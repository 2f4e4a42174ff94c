"""Asking a duck-typed object for an optional attribute.

Our middleware looks for optional hooks on the policy or env it is given (`transition_keys`,
`collect_steps`, `step_batch`, ...). A `unittest.mock` Mock answers every name with a child mock,
and a Mock subclass whose `__init__` takes no `parent` raises TypeError building one: such an
object is asked only for what it really defines.
"""
import inspect
import sys
from typing import Any

_MISSING = object()


def optional_attr(obj: Any, name: str, default: Any = None) -> Any:
    """`obj.name` when `obj` has it, else `default`."""
    mock = sys.modules.get('unittest.mock')  # no Mock can exist before unittest.mock is imported
    if mock is not None and isinstance(obj, mock.NonCallableMock):
        spec = obj.__dict__.get('_mock_methods')  # a Mock(spec=...) defines the names of its spec
        try:
            inspect.getattr_static(obj, name)
        except AttributeError:
            if spec is None or name not in spec:
                return default
    return getattr(obj, name, default)


def has_attr(obj: Any, name: str) -> bool:
    """`hasattr(obj, name)`, asking a Mock only for what it defines."""
    return optional_attr(obj, name, _MISSING) is not _MISSING
