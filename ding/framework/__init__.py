"""The middleware runtime: `task`, contexts, events, roles and the router interface.

`from ding.framework import task, ding_init, Task, Context, OnlineRLContext, OfflineRLContext, Parallel, EventLoop,
Supervisor`
"""
from ding.framework.context import Context, OfflineRLContext, OnlineRLContext
from ding.framework.contract import contract, require_config
from ding.framework.ding_init import ding_init
from ding.framework.event_loop import EventLoop
from ding.framework.parallel import Parallel
from ding.framework.pipeline_table import PipelineWiringWarning
from ding.framework.roles import Role
from ding.framework.router import LocalRouter, Router
from ding.framework.supervisor import Supervisor
from ding.framework.task import Task
from ding.framework.task import task  # rebinds the name `task` from the submodule to the global Task

__all__ = [
    'task', 'ding_init', 'Task', 'Context', 'OnlineRLContext', 'OfflineRLContext', 'Parallel', 'Role', 'Router',
    'LocalRouter', 'PipelineWiringWarning', 'contract', 'require_config', 'EventLoop', 'Supervisor'
]
