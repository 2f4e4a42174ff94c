"""Out of the buffer: `offpolicy_data_fetcher` (with priority write-back). The offline
fetcher (epochs over a dataset) is in offline.py."""
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ding.data.batch import Batch
from ding.data.buffer.middleware.sequence_priority import write_sequence_priorities
from ding.data.buffer.sampling import InsufficientData
from ding.data.buffer.sequence_sampling import sample_sequences
from ding.framework.contract import contract, require_config
from ding.framework.middleware import _common


def _sample(buffer_: Any, size: int) -> Optional[Tuple[Batch, np.ndarray]]:
    """(Batch of `size` rows, buffer indices), or None while the buffer holds fewer rows.
    PER's importance-sampling weights become the `priority_IS` column."""
    if size <= 0 or buffer_.count() < size:
        return None
    try:
        sampled = buffer_.sample(size)
    except InsufficientData:  # a view may see fewer rows than the buffer holds (sample_range_view)
        return None
    if getattr(sampled, 'whole_items', False):  # a buffer of objects: the items themselves
        return [d.data for d in sampled], np.asarray(sampled.index)
    batch = sampled.batch
    meta = getattr(sampled, 'meta', None) or {}
    if 'priority_IS' in meta:
        batch['priority_IS'] = np.asarray(meta['priority_IS'], dtype=np.float32)
    return batch, np.asarray(sampled.index)


def _last_priority(train_output: Any) -> Optional[np.ndarray]:
    output = train_output[-1] if isinstance(train_output, list) and train_output else train_output
    if isinstance(output, Mapping) and output.get('priority') is not None:
        return np.asarray(output['priority'])
    return None


def offpolicy_data_fetcher(cfg: Any, buffer_: Any, data_shortage_warning: bool = False) -> Any:
    """w: train_data, a Batch of `cfg.policy.learn.batch_size` rows (None while the buffer is short).

    `buffer_` is one buffer, a list of `(buffer, ratio)` (the batch is split by ratio, and the
    columns all parts have are concatenated) or a dict `{name: buffer}` (train_data becomes
    `{name: Batch}`). After the yield, a 'priority' in the learner's output is written back to
    the sampled items."""
    require_config(cfg, 'offpolicy_data_fetcher', 'policy.learn.batch_size')
    batch_size = int(cfg.policy.learn.batch_size)
    # collect.unroll_len > 1 means a recurrent learner, fed windows of that
    # many consecutive steps of one env (ding/data/buffer/sequence_sampling.py)
    unroll_len = int(cfg.policy.get('collect', {}).get('unroll_len', 1) or 1)

    def _short(ctx: Any) -> None:
        ctx.train_data = None
        if data_shortage_warning:
            _common.warn_once(f'fetcher.short.{id(buffer_)}', 'offpolicy_data_fetcher: buffer holds fewer items than '
                              f'batch_size={batch_size}; training waits for more data')

    def _fetch_one(ctx: Any):
        got = sample_sequences(buffer_, batch_size, unroll_len) if unroll_len > 1 else _sample(buffer_, batch_size)
        if got is None:
            _short(ctx)
            yield
            return
        ctx.train_data, index = got
        yield
        priority = _last_priority(ctx.train_output)
        if priority is not None and index.ndim == 2:  # one priority per sampled window of rows
            write_sequence_priorities(buffer_, index, priority)
        elif priority is not None:
            buffer_.update(index, meta={'priority': priority})

    # Generators, like every form of this fetcher (`next(fetcher(ctx))` runs it), with
    # nothing to do after the yield: no priority write-back across several buffers.
    def _fetch_mixed(ctx: Any):
        parts: List[Batch] = []
        for buf, ratio in buffer_:
            got = _sample(buf, int(batch_size * ratio))
            if got is None:
                _short(ctx)
                yield
                return
            parts.append(got[0])
        if all(isinstance(p, list) for p in parts):  # buffers of whole objects: one list
            ctx.train_data = [item for p in parts for item in p]
        else:  # the columns every buffer has: an agent's env ids, say, are not in demonstrations
            shared = [k for k in parts[0].keys() if all(k in p.keys() for p in parts[1:])]
            ctx.train_data = Batch.cat([Batch({k: p[k] for k in shared}) for p in parts])
        yield

    def _fetch_named(ctx: Any):
        data: Dict[str, Batch] = {}
        for name, buf in buffer_.items():
            got = _sample(buf, batch_size)
            if got is None:
                _short(ctx)
                yield
                return
            data[name] = got[0]
        ctx.train_data = data
        yield

    if isinstance(buffer_, Mapping):
        fn = _fetch_named
    elif isinstance(buffer_, Sequence):
        fn = _fetch_mixed
    elif _common.has_attr(buffer_, 'sample'):
        fn = _fetch_one
    else:  # keep this message word for word: callers compare it
        raise TypeError(f'not support buffer argument type: {type(buffer_)}')
    return contract(fn, reads=('train_output', ), writes=('train_data', ), name='offpolicy_data_fetcher')

