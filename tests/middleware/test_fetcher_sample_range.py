"""`offpolicy_data_fetcher` over a buffer view that sees only part of the storage
(`sample_range_view`, as DI-engine's ppg_offpolicy.py uses it): while that part is short the
step trains on nothing (train_data None) instead of raising, as DI-engine's fetcher does."""
import numpy as np
import pytest
from easydict import EasyDict

from ding.data import DequeBuffer
from ding.data.batch import Batch
from ding.data.buffer.middleware import sample_range_view
from ding.data.buffer.sampling import InsufficientData
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import offpolicy_data_fetcher


def test_a_short_sample_range_gives_no_train_data_until_filled():
    buffer_ = DequeBuffer(size=10)
    recent = buffer_.view().use(sample_range_view(buffer_, start=-2))  # items 8 and 9 only
    fetch = offpolicy_data_fetcher(EasyDict(policy=dict(learn=dict(batch_size=2))), {'recent': recent})
    buffer_.push(Batch(x=np.arange(5)))
    with pytest.raises(InsufficientData):
        recent.sample(2)
    ctx = OnlineRLContext()
    next(fetch(ctx))  # a generator middleware, as every form of DI-engine's fetcher
    assert ctx.train_data is None
    buffer_.push(Batch(x=np.arange(5, 10)))
    next(fetch(ctx))
    assert sorted(ctx.train_data['recent']['x'].tolist()) == [8, 9]
