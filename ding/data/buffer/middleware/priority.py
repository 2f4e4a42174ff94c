"""Prioritized experience replay (Schaul et al., 2016) as a buffer middleware.

Row i is drawn with probability P(i) = p_i^alpha / sum_k p_k^alpha, where p_i is its
priority (`priority_power_factor` = alpha). Rows pushed without a priority get the largest
priority seen so far, so new data is replayed soon. A sample is stratified: [0, total) is
cut into `size` equal segments and one row drawn from each, so rows can repeat.

With `IS_weight`, each sampled row gets the importance-sampling weight
w_i = (N * P(i))^-beta / max_k (N * P(k))^-beta   (N = rows stored; the max is over the
whole buffer, i.e. at the smallest priority), in `sampled.meta['priority_IS']` and as a
`priority_IS` column of `sampled.batch`. beta (`IS_weight_power_factor`) grows linearly to 1
over `IS_weight_anneal_train_iter` samples.

Priorities live in a sum tree indexed by buffer slot; `update(ids, meta={'priority': p})`
rewrites them (the learner's new TD errors); deleted rows get priority 0 and are never drawn.
`sample(size, groupby=key, unroll_len=T)` draws windows of T rows of one group by priority
instead (R2D2's prioritized sequence replay, `sequence_priority.py`).
"""
from typing import Any, Callable, Dict, Optional

import numpy as np

from ding.data.buffer.middleware.sequence_priority import sample_windows
from ding.data.buffer.middleware.sum_tree import SumMinTree
from ding.data.buffer.sampling import affordable, indices_given

MIN_PRIORITY = 1e-6  # a priority of 0 would make a row unsampleable forever


class PriorityExperienceReplay:

    def __init__(self, buffer: Any, IS_weight: bool = True, priority_power_factor: float = 0.6,
                 IS_weight_power_factor: float = 0.4, IS_weight_anneal_train_iter: float = int(1e5)) -> None:
        self.buffer = buffer
        self.IS_weight = IS_weight
        self.alpha = priority_power_factor
        self.beta = IS_weight_power_factor
        self.beta_step = (1.0 - IS_weight_power_factor) / max(IS_weight_anneal_train_iter, 1)
        self.max_priority = 1.0
        self.priority = np.zeros(buffer.size, dtype=np.float64)  # raw priority per slot, 0 = empty
        self.tree = SumMinTree(buffer.size)  # over priority ** alpha

    def __call__(self, action: str, chain: Callable, *args: Any, **kwargs: Any) -> Any:
        handler = getattr(self, '_' + action, None)
        return handler(chain, *args, **kwargs) if handler else chain(*args, **kwargs)

    # --- actions ------------------------------------------------------------------------
    def _push(self, chain: Callable, data: Any, meta: Optional[dict] = None) -> Any:
        priority, meta = _split_priority(meta)
        if priority is not None:
            priority = np.asarray(priority, dtype=np.float64).reshape(-1)
            self._check(priority)
        pushed = chain(data, meta)
        ids = np.atleast_1d(pushed.index)
        if priority is None:
            priority = self.max_priority
        else:
            priority = priority[-len(ids):]  # rows beyond the buffer size were not kept
            self.max_priority = max(self.max_priority, float(priority.max()))
        self._set(ids % self.buffer.size, np.maximum(priority, MIN_PRIORITY))
        return pushed

    def _sample(self, chain: Callable, size: Optional[int] = None, indices: Any = None, replace: bool = False,
                sample_range: Optional[slice] = None, ignore_insufficient: bool = False,
                groupby: Optional[str] = None, unroll_len: Optional[int] = None) -> Any:
        if not indices_given(indices):
            indices = None
        if groupby is not None and unroll_len not in (None, 1) and sample_range is None and indices is None:
            return sample_windows(self, chain, size, groupby, unroll_len, ignore_insufficient)
        if groupby is not None or sample_range is not None or unroll_len not in (None, 1):
            raise ValueError('PriorityExperienceReplay draws rows, or windows with groupby and unroll_len > 1 '
                             '(ding/data/buffer/middleware/sequence_priority.py); it does not support groupby '
                             'without unroll_len, or sample_range')
        if indices is None:
            if size is None:
                raise ValueError('sample needs a size or indices')
            size = affordable(size, self.buffer.count(), replace, ignore_insufficient, partial=False)
            mass = (np.arange(size) + self.buffer.rng.random(size)) * (self.tree.total / max(size, 1))
            indices = self.buffer.ids_at(self.tree.find(mass))
        # Read priorities before the chain runs: a later middleware may delete what it returns.
        slots = np.asarray(indices, dtype=np.int64) % self.buffer.size
        priority = self.priority[slots]
        weights = self.importance_weights(slots) if self.IS_weight and len(slots) else None
        sampled = chain(indices=indices)
        sampled.meta['priority'] = priority
        sampled.meta['priority_idx'] = slots  # the row's place in the sum tree (its slot here)
        if weights is not None:
            sampled.meta['priority_IS'] = weights
            sampled.batch['priority_IS'] = weights
            self.beta = min(1.0, self.beta + self.beta_step)
        return sampled

    def _update(self, chain: Callable, index: Any, data: Any = None, meta: Optional[dict] = None) -> Any:
        priority, meta = _split_priority(meta)
        found = chain(index, data, meta)
        if priority is not None:
            priority = np.broadcast_to(np.asarray(priority, dtype=np.float64).reshape(-1), np.shape(found) or (1, ))
            self._check(priority)
            ok = np.atleast_1d(found)
            slots = self.buffer.slots_of(index, strict=False)[0][ok]
            new = np.maximum(priority[ok], MIN_PRIORITY)
            self._set(slots, new)
            if len(new):
                self.max_priority = max(self.max_priority, float(new.max()))
        return found

    def _delete(self, chain: Callable, index: Any) -> Any:
        slots, found = self.buffer.slots_of(index, strict=False)
        result = chain(index)
        self._set(slots[found], 0.0)
        return result

    def _clear(self, chain: Callable) -> Any:
        self.tree.reset()
        self.priority[:] = 0
        self.max_priority = 1.0
        return chain()

    # --- weights and state --------------------------------------------------------------
    def importance_weights(self, slots: np.ndarray) -> np.ndarray:
        """w_i = (N * P(i))^-beta normalised by the largest weight in the buffer (float32)."""
        total, n = self.tree.total, self.buffer.count()
        prob = self.tree.leaves[slots] / total
        max_weight = (n * self.tree.min / total)**(-self.beta)
        return ((n * prob)**(-self.beta) / max_weight).astype(np.float32)

    def _set(self, slots: np.ndarray, priority: Any) -> None:
        self.priority[slots] = priority
        self.tree.set(slots, self.priority[slots]**self.alpha * (self.priority[slots] > 0))

    def state_dict(self) -> Dict[str, Any]:
        return {'priority': self.priority.copy(), 'max_priority': self.max_priority, 'beta': self.beta}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self.priority[:] = state['priority']
        self.tree.reset(self.priority**self.alpha * (self.priority > 0))
        self.max_priority = state['max_priority']
        self.beta = state['beta']

    @staticmethod
    def _check(priority: np.ndarray) -> None:
        if not np.all(np.isfinite(priority)) or np.any(priority < 0):
            raise ValueError(f'priorities must be finite and >= 0, got {priority}')


def _split_priority(meta: Optional[dict]):
    """(priority or None, the rest of meta or None); drops `priority_idx`, which sample sets."""
    if not meta or ('priority' not in meta and 'priority_idx' not in meta):
        return None, meta
    rest = {k: v for k, v in meta.items() if k not in ('priority', 'priority_idx')}
    return meta.get('priority'), (rest or None)
