"""The middleware runtime: `task`, contexts, events, roles and the router interface.

`from ding.framework import task, ding_init, Task, Context, OnlineRLContext, OfflineRLContext, Parallel, EventLoop,
Supervisor`; the last three are defined in ding/compat/ and loaded on first use.
"""
import importlib

from ding.framework.context import Context, OfflineRLContext, OnlineRLContext
from ding.framework.contract import contract, require_config
from ding.framework.ding_init import ding_init
from ding.framework.pipeline_table import PipelineWiringWarning
from ding.framework.roles import Role
from ding.framework.router import LocalRouter, Router
from ding.framework.task import Task
from ding.framework.task import task  # rebinds the name `task` from the submodule to the global Task

__all__ = [
    'task', 'ding_init', 'Task', 'Context', 'OnlineRLContext', 'OfflineRLContext', 'Parallel', 'Role', 'Router',
    'LocalRouter', 'PipelineWiringWarning', 'contract', 'require_config', 'EventLoop', 'Supervisor'
]

_DI_ENGINE = {'EventLoop': 'ding.compat.event_loop', 'Parallel': 'ding.compat.parallel',
              'Supervisor': 'ding.compat.supervisor'}


def __getattr__(name: str):
    if name not in _DI_ENGINE:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    value = globals()[name] = getattr(importlib.import_module(_DI_ENGINE[name]), name)
    return value
