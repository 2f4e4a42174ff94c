"""Who owns a model's weights: a policy registers `publish_weights` for its model, and code
that loads weights into the bare model from outside (a distributed ModelExchanger receiving a
new version) calls `weights_loaded(model)`, so the policy's acting copies refresh."""
import weakref
from typing import Any, Callable

_owners: 'weakref.WeakKeyDictionary[Any, Callable[[], None]]' = weakref.WeakKeyDictionary()


def register_owner(model: Any, on_loaded: Callable[[], None]) -> None:
    owner = getattr(on_loaded, '__self__', None)
    if owner is not None:  # a bound method: do not keep its object alive through the model
        ref, name = weakref.ref(owner), on_loaded.__name__
        on_loaded = lambda: getattr(ref(), name, lambda: None)()  # noqa: E731
    _owners[model] = on_loaded


def weights_loaded(model: Any) -> None:
    callback = _owners.get(model)
    if callback is not None:
        callback()
