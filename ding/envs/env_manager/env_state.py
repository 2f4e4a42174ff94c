"""`EnvState`: the env life cycle (VOID -> INIT -> RUN -> DONE, with RESET, ERROR and
NEED_RESET), for user code that compares against it."""
import enum


class EnvState(enum.IntEnum):
    VOID = 0
    INIT = 1
    RUN = 2
    RESET = 3
    DONE = 4
    ERROR = 5
    NEED_RESET = 6
