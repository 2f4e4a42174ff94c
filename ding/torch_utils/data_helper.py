"""Convert nested data (dicts, lists, tuples, namedtuples) between numpy, torch and devices.

Strings and None pass through unchanged; `ignore_keys` leaves those dict entries as they are.
"""
import numbers
from typing import Any, Iterable, Optional

import numpy as np
import torch


def _map(item: Any, fn, ignore_keys: Iterable[str] = ()) -> Any:
    if isinstance(item, dict):
        return type(item)({k: (v if k in ignore_keys else _map(v, fn, ignore_keys)) for k, v in item.items()})
    if isinstance(item, tuple) and hasattr(item, '_fields'):  # namedtuple
        return type(item)(*[_map(v, fn, ignore_keys) for v in item])
    if isinstance(item, (list, tuple)):
        return type(item)(_map(v, fn, ignore_keys) for v in item)
    return fn(item)


def to_device(item: Any, device: str, ignore_keys: Iterable[str] = ()) -> Any:
    """Move every tensor (and module) in `item` to `device`."""

    def move(x: Any) -> Any:
        return x.to(device) if isinstance(x, (torch.Tensor, torch.nn.Module)) else x

    return _map(item, move, ignore_keys)


def to_tensor(item: Any, dtype: Optional[torch.dtype] = None, ignore_keys: Iterable[str] = (),
              transform_scalar: bool = True) -> Any:
    """numpy arrays and (with `transform_scalar`) python numbers become tensors, of `dtype` if given."""

    def convert(x: Any) -> Any:
        if isinstance(x, torch.Tensor):
            return x if dtype is None else x.to(dtype)
        if isinstance(x, np.ndarray):
            t = torch.from_numpy(np.ascontiguousarray(x)) if x.dtype != np.object_ else x
            return t if dtype is None or not isinstance(t, torch.Tensor) else t.to(dtype)
        if isinstance(x, (bool, numbers.Number, np.generic)) and transform_scalar:
            return torch.as_tensor(x, dtype=dtype)
        return x

    return _map(item, convert, ignore_keys)


def to_ndarray(item: Any, dtype: Optional[np.dtype] = None) -> Any:
    """Tensors (and python numbers) become numpy arrays, of `dtype` if given."""

    def convert(x: Any) -> Any:
        if isinstance(x, torch.Tensor):
            x = x.detach().cpu().numpy()
        elif isinstance(x, (bool, numbers.Number)):
            x = np.asarray(x)
        if isinstance(x, (np.ndarray, np.generic)) and dtype is not None:
            return x.astype(dtype)
        return x

    return _map(item, convert)


def to_list(item: Any) -> Any:
    """Tensors and arrays become (nested) python lists."""

    def convert(x: Any) -> Any:
        if isinstance(x, torch.Tensor):
            return x.detach().cpu().tolist()
        if isinstance(x, np.ndarray):
            return x.tolist()
        return x

    return _map(item, convert)


tensor_to_list = to_list


def to_dtype(item: Any, dtype: torch.dtype) -> Any:
    return _map(item, lambda x: x.to(dtype) if isinstance(x, torch.Tensor) else x)


def to_item(data: Any, ignore_error: bool = True) -> Any:
    """One-element tensors and arrays become python scalars; others raise unless `ignore_error`
    (then they are left out of dicts)."""
    if isinstance(data, dict):
        out = {}
        for k, v in data.items():
            try:
                out[k] = to_item(v, ignore_error=False)
            except ValueError:
                if not ignore_error:
                    raise
        return out
    if isinstance(data, (list, tuple)):
        return type(data)(to_item(v, ignore_error) for v in data)
    if isinstance(data, (torch.Tensor, np.ndarray, np.generic)):
        size = data.numel() if isinstance(data, torch.Tensor) else np.size(data)
        if size != 1:
            raise ValueError(f'to_item needs a one-element tensor or array, got shape {tuple(np.shape(data))}')
        return data.item()
    return data
