"""torch's intra-op thread budget while an async pipeline runs.

Why: torch sizes its intra-op pool to the machine's cores. In async mode a learner stage and a
collector stage run torch at the same time, each asking for every core, and on a small machine
they oversubscribe it: on 2 cores a DQN pipeline ran async at 0.63x sync with torch's default
threads and at 1.83x with one thread. So while the pipeline runs, the budget is the cores
shared by the stages that can be busy at once (at most `max_lag + 1` steps are in flight, one
stage each), and never more than what the user set. It is restored when the run ends.
"""
import os
import sys
from contextlib import contextmanager
from typing import Iterator, Optional


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def async_thread_budget(n_stages: int, max_lag: int, cores: Optional[int] = None) -> int:
    """Intra-op threads for each of the stages that may run torch concurrently."""
    concurrent = max(1, min(n_stages, max_lag + 1))
    return max(1, (cores or usable_cores()) // concurrent)


@contextmanager
def torch_thread_budget(budget: Optional[int]) -> Iterator[None]:
    """Lower torch's intra-op threads to `budget` (None: leave them) for the block.
    A process that has not imported torch has nothing to budget, and torch is not imported here."""
    torch = sys.modules.get('torch')
    if budget is None or torch is None:
        yield
        return
    before = torch.get_num_threads()
    if budget < before:
        torch.set_num_threads(budget)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)
