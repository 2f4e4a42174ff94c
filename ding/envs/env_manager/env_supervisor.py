"""DI-engine's `EnvSupervisor(type_=ChildType.PROCESS, env_fn=[...], **cfg.env.manager)` on our managers.

`ChildType.PROCESS` runs the envs in worker processes (SubprocessEnvManagerV2: shared-memory
observations, restarts on faults); `ChildType.THREAD` runs them in this process
(BaseEnvManagerV2), which for Python envs is as fast as DI-engine's one thread per env under the
GIL. Keyword arguments are the manager's config keys (DI-engine passes `**cfg.env.manager`);
keys neither manager knows get one warning, as in DI-engine. The result is an env manager:
StepCollector and interaction_evaluator take it as they take any other.
"""
import logging
from typing import Any, Callable, Optional, Sequence

from ding.envs.env_manager.base_env_manager import BaseEnvManagerV2
from ding.envs.env_manager.env_state import EnvState  # noqa: F401  (DI-engine imports it from here)
from ding.envs.env_manager.subprocess_env_manager import SubprocessEnvManagerV2
from ding.framework.supervisor import ChildType

logger = logging.getLogger(__name__)
# Keys of DI-engine's supervisor that need no counterpart here.
_DI_ENGINE_ONLY = {'cfg_type', 'type', 'copy_on_get', 'max_try', 'import_names', 'shared_memory', 'context'}


class EnvSupervisor:
    """Picks the manager for `type_` (see the module docstring)."""

    def __new__(cls, type_: Any = ChildType.PROCESS, env_fn: Optional[Sequence[Callable]] = None, **kwargs: Any):
        if cls is EnvSupervisor:
            cls = _ProcessEnvSupervisor if ChildType(type_) is ChildType.PROCESS else _ThreadEnvSupervisor
        return super().__new__(cls)

    def _init_manager(self, manager_cls: type, env_fn: Optional[Sequence[Callable]], kwargs: dict) -> None:
        if not env_fn:
            raise ValueError('EnvSupervisor needs env_fn, a non-empty list of callables that make the envs')
        known = set(manager_cls.default_config())
        cfg = {k: v for k, v in kwargs.items() if k in known and k not in ('type', 'cfg_type')}
        if 'max_try' in kwargs and 'max_retry' not in kwargs:
            cfg['max_retry'] = kwargs['max_try']  # DI-engine's alias
        unknown = sorted(k for k in kwargs if k not in known and k not in _DI_ENGINE_ONLY)
        if unknown:
            logger.warning('EnvSupervisor ignores unknown parameters: %s', ', '.join(unknown))
        manager_cls.__init__(self, env_fn, cfg)


class _ProcessEnvSupervisor(EnvSupervisor, SubprocessEnvManagerV2):

    def __init__(self, type_: Any = ChildType.PROCESS, env_fn: Optional[Sequence[Callable]] = None,
                 **kwargs: Any) -> None:
        self._init_manager(SubprocessEnvManagerV2, env_fn, kwargs)


class _ThreadEnvSupervisor(EnvSupervisor, BaseEnvManagerV2):

    def __init__(self, type_: Any = ChildType.THREAD, env_fn: Optional[Sequence[Callable]] = None,
                 **kwargs: Any) -> None:
        self._init_manager(BaseEnvManagerV2, env_fn, kwargs)
