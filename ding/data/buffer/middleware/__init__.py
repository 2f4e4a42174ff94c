"""Buffer middleware: callables `mw(action, chain, *args, **kwargs)` added with `buffer.use(mw)`."""
from ding.data.buffer.middleware.clone_object import clone_object
from ding.data.buffer.middleware.group_sample import group_sample
from ding.data.buffer.middleware.priority import PriorityExperienceReplay
from ding.data.buffer.middleware.use_time_check import UseTimeCheck, use_time_check

__all__ = ['PriorityExperienceReplay', 'use_time_check', 'UseTimeCheck', 'clone_object', 'group_sample']
