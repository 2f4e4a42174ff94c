"""The per-item DI-engine usage still works: push dicts one by one, iterate BufferedData,
write priorities back item by item."""
import numpy as np
import torch

from ding.data import BufferedData, DequeBuffer, PriorityExperienceReplay, as_batch


def test_item_by_item_pipeline_with_priorities():
    np.random.seed(0)
    buffer_ = DequeBuffer(size=10)
    per = PriorityExperienceReplay(buffer_, IS_weight=True, priority_power_factor=1.0)
    buffer_.use(per)
    for i in range(6):
        buffer_.push({'obs': torch.full((4, ), float(i)), 'action': torch.tensor(i % 2), 'reward': torch.tensor(1.0)})
    sampled = buffer_.sample(4)
    assert all(isinstance(d, BufferedData) for d in sampled) and len(sampled) == 4
    train_data = [d.data for d in sampled]
    assert train_data[0].obs.shape == (4, ) and isinstance(train_data[0].obs, torch.Tensor)
    assert as_batch(train_data).obs.shape == (4, 4)
    for d in sampled:
        assert d.meta['priority_IS'] == 1.0  # all priorities equal
        d.meta['priority'] = float(d.index + 1)
        assert buffer_.update(index=d.index, data=None, meta=d.meta) is True
    for d in sampled:
        assert per.priority[d.index] == d.index + 1
