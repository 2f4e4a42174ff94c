"""Buffer middleware: callables `mw(action, chain, *args, **kwargs)` added with `buffer.use(mw)`."""
from ding.data.buffer.middleware.clone_object import clone_object
from ding.data.buffer.middleware.group_sample import group_sample
from ding.data.buffer.middleware.priority import PriorityExperienceReplay
from ding.data.buffer.middleware.padding import padding
from ding.data.buffer.middleware.sample_range_view import sample_range_view
from ding.data.buffer.middleware.staleness_check import staleness_check
from ding.data.buffer.middleware.use_time_check import UseTimeCheck, use_time_check

__all__ = ['PriorityExperienceReplay', 'use_time_check', 'UseTimeCheck', 'clone_object', 'group_sample', 'padding',
           'sample_range_view', 'staleness_check']
