"""DI-engine's `EnvSupervisor(type_=ChildType.PROCESS, env_fn=[...], **cfg.env.manager)` on our managers.

`ChildType.PROCESS` runs the envs in worker processes (SubprocessEnvManagerV2: shared-memory
observations, restarts on faults); `ChildType.THREAD` runs them in this process
(BaseEnvManagerV2), which for Python envs is as fast as DI-engine's one thread per env under the
GIL. Keyword arguments are the manager's config keys (DI-engine passes `**cfg.env.manager`);
keys neither manager knows get one warning, as in DI-engine. The result is an env manager:
StepCollector and interaction_evaluator take it as they take any other. DI-engine's supervisor
calls on top (`step(block=False)` + `recv()`, `env_states`, env attributes, ...) are in
env_supervisor_messages.py.
"""
import enum
import logging
from typing import Any, Callable, List, Optional, Sequence

from ding.envs.env_manager.base_env_manager import BaseEnvManagerV2
from ding.envs.env_manager.env_state import EnvState  # noqa: F401  (DI-engine imports it from here)
from ding.compat.env_supervisor_messages import SupervisorMessages, read_env
from ding.envs.env_manager.subprocess_env_manager import SubprocessEnvManagerV2
from ding.envs.env_manager.subprocess_worker import EnvWorker
from ding.envs.env_manager.worker_pool import WorkerFailure
from ding.compat.supervisor_payloads import ChildType

logger = logging.getLogger(__name__)
# Keys of DI-engine's supervisor that need no counterpart here.
_DI_ENGINE_ONLY = {'cfg_type', 'type', 'copy_on_get', 'max_try', 'import_names', 'shared_memory', 'context'}


class EnvRetryType(str, enum.Enum):
    """DI-engine's `retry_type` values. Accepted; a failing env is always rebuilt from its
    env_fn here (env_faults.py), which covers both."""
    RESET = 'reset'
    RENEW = 'renew'


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
        self._init_messages()
        manager_cls.__init__(self, env_fn, cfg)


class SupervisedEnvWorker(EnvWorker):
    """A worker that also answers for its envs' own attributes and methods (`env_call`)."""
    extra_commands = ('env_call', )

    def env_call(self, payload: tuple) -> list:
        local_ids, key, call_args = payload
        return [read_env(self.envs[j], key, call_args) for j in local_ids]


class _ProcessEnvSupervisor(SupervisorMessages, EnvSupervisor, SubprocessEnvManagerV2):
    worker_cls = SupervisedEnvWorker
    _sends_steps_ahead = True

    def __init__(self, type_: Any = ChildType.PROCESS, env_fn: Optional[Sequence[Callable]] = None,
                 **kwargs: Any) -> None:
        self._init_manager(SubprocessEnvManagerV2, env_fn, kwargs)

    def _read_envs(self, key: str, env_ids: List[int], call_args: Optional[tuple]) -> list:
        self._finish_step_in_flight()  # a worker answers commands between steps only
        values = {}
        for i in env_ids:
            handle = self._handles[self._owner[i]]
            reply = handle.request('env_call', ([handle.env_ids.index(i)], key, call_args), self._cfg.reset_timeout)
            if isinstance(reply, WorkerFailure):
                raise RuntimeError(f'{type(self).__name__}: the worker of env {i} failed answering for {key!r}: '
                                   f'{reply.text}')
            values[i] = reply[0]
        return [values[i] for i in env_ids]


class _ThreadEnvSupervisor(SupervisorMessages, EnvSupervisor, BaseEnvManagerV2):

    def __init__(self, type_: Any = ChildType.THREAD, env_fn: Optional[Sequence[Callable]] = None,
                 **kwargs: Any) -> None:
        self._init_manager(BaseEnvManagerV2, env_fn, kwargs)

    def _read_envs(self, key: str, env_ids: List[int], call_args: Optional[tuple]) -> list:
        return [read_env(self._envs[i], key, call_args) for i in env_ids]
