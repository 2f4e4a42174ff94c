"""`ttorch_collate`: DI-engine's collate for treetensor transitions (`ding.utils.data.ttorch_collate`).

DI-engine keeps transitions as treetensor trees and stacks a list of them into one tree for a
learner. ding keeps columns in `Batch` and does not need treetensor; this function is for code
written against DI-engine's, and needs DI-treetensor installed (`pip install DI-treetensor`).
"""
from typing import Any, Sequence


def ttorch_collate(x: Sequence[Any], json: bool = False, cat_1dim: bool = True) -> Any:
    """Stack `x` (treetensor trees, or nested dicts made into them) leaf by leaf along a new
    first dim. `cat_1dim`: a leaf that comes out `[B, 1]` (a one-element field per transition,
    e.g. `reward: [1.0]`) becomes `[B]`. `json`: the result as nested dicts instead of a tree."""
    try:
        import treetensor.torch as ttorch
    except ImportError as err:
        raise ImportError('ttorch_collate needs DI-treetensor (pip install DI-treetensor); ding itself keeps '
                          f'columns in ding.data.Batch: {err}') from err
    if len(x) == 0:
        raise ValueError('ttorch_collate needs at least one transition')
    stacked = ttorch.stack([t if isinstance(t, ttorch.Tensor) else ttorch.as_tensor(t) for t in x])
    if cat_1dim:
        _squeeze_one_columns(stacked, ttorch)
    return stacked.json() if json else stacked


def _squeeze_one_columns(tree: Any, ttorch: Any) -> None:
    for key in list(tree.keys()):
        value = tree[key]
        if isinstance(value, ttorch.Tensor):
            _squeeze_one_columns(value, ttorch)
        elif value.dim() == 2 and value.shape[1] == 1:
            setattr(tree, key, value.squeeze(-1))
