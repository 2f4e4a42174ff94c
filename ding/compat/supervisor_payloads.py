"""The messages between a `Supervisor` and its children, with DI-engine's names and fields."""
import enum
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


class ChildType(enum.Enum):
    """Where a supervisor's children run."""
    PROCESS = 'process'
    THREAD = 'thread'


class ReserveMethod(enum.Enum):
    """Methods every child serves besides its object's own."""
    SHUTDOWN = '_shutdown'
    GETATTR = '_getattr'


@dataclass
class SendPayload:
    """Call `method(*args, **kwargs)` on child `proc_id`; `req_id` pairs the answer with it."""
    proc_id: int
    req_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    method: Any = None
    args: List = field(default_factory=list)
    kwargs: Dict = field(default_factory=dict)


@dataclass
class RecvPayload:
    """The answer of child `proc_id` to request `req_id`: `data`, or the exception in `err`."""
    proc_id: int
    req_id: Optional[str] = None
    method: Any = None
    data: Any = None
    err: Optional[BaseException] = None
    extra: Any = None
