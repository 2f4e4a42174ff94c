"""DI-engine's `ding.framework.supervisor` names: `ChildType` (where an EnvSupervisor runs its envs)
and `EnvSupervisor` (ding/envs/env_manager/env_supervisor.py, loaded on first use so that the
framework floor does not import the envs)."""
import enum
from typing import Any


class ChildType(enum.Enum):
    PROCESS = 'process'
    THREAD = 'thread'


def __getattr__(name: str) -> Any:
    if name == 'EnvSupervisor':
        from ding.envs.env_manager.env_supervisor import EnvSupervisor
        return EnvSupervisor
    raise AttributeError(f"module 'ding.framework.supervisor' has no attribute {name!r}")
