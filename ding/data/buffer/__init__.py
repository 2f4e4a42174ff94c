"""Replay buffers: `DequeBuffer` and its middleware."""
from ding.data.buffer.buffer import Buffer
from ding.data.buffer.buffered_data import BufferedData, SampledBatch
from ding.data.buffer.deque_buffer import DequeBuffer
from ding.data.buffer.middleware import PriorityExperienceReplay, UseTimeCheck, clone_object, group_sample, \
    use_time_check

__all__ = [
    'Buffer', 'BufferedData', 'SampledBatch', 'DequeBuffer', 'PriorityExperienceReplay', 'use_time_check',
    'UseTimeCheck', 'clone_object', 'group_sample'
]
