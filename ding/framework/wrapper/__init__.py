"""Middleware wrappers for `task.use_wrapper`."""
from ding.framework.wrapper.step_timer import StepTimer

__all__ = ['StepTimer']
