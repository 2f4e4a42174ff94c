"""torch's intra-op threads for a pipeline a user writes: one, unless the user chose.

Why: torch starts with one intra-op thread per core. The networks of a typical RL pipeline are
small (a CartPole MLP, batch 64), so each op is microseconds of work and the threads spend
their time waking and synchronising; on a busy machine they also contend with the env. A
pipeline from docs/pipelines.md ran 17x slower with torch's default than with one thread
(210 s against 12 s for 3,000 env steps, issue 38). The CLI (`ding train`, `ding -m serial`)
sets one thread, and `task.start()` calls `apply_default_torch_threads()`, which sets
`DEFAULT_TORCH_THREADS` unless the user chose (async mode's `task.start(torch_threads=n)` is a
choice too, and a budget of its own: ding/framework/thread_budget.py):

- OMP_NUM_THREADS or MKL_NUM_THREADS is set in the environment, or
- `torch.set_num_threads(n)` was called before, seen as a thread count that is not torch's
  own default (the machine's logical, usable or physical core count). A user who wants
  exactly the core count sets OMP_NUM_THREADS instead.

A process that has not imported torch has no threads to set, and torch is not imported here.
"""
import logging
import os
import sys
from typing import Optional, Set

logger = logging.getLogger('ding.threads')

DEFAULT_TORCH_THREADS = 1
THREAD_ENV_VARS = ('OMP_NUM_THREADS', 'MKL_NUM_THREADS')


def physical_cores() -> Optional[int]:
    """Physical cores from /proc/cpuinfo ((physical id, core id) pairs); None where unknown."""
    try:
        with open('/proc/cpuinfo') as f:
            text = f.read()
    except OSError:
        return None
    cores, package = set(), None
    for line in text.splitlines():
        key, _, value = line.partition(':')
        key = key.strip()
        if key == 'physical id':
            package = value.strip()
        elif key == 'core id':
            cores.add((package, value.strip()))
    return len(cores) or None


def torch_default_counts() -> Set[int]:
    """The thread counts torch may start with on this machine (it uses physical cores where it
    can tell them from hyper-threads, else the logical count)."""
    counts = {os.cpu_count() or 1, physical_cores() or 1}
    try:
        counts.add(len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        pass
    return counts


def user_chosen_threads(torch_module) -> Optional[str]:
    """How the user chose torch's threads ('OMP_NUM_THREADS=4', 'torch.set_num_threads(3)'),
    or None when they are torch's default."""
    for name in THREAD_ENV_VARS:
        if os.environ.get(name):
            return f'{name}={os.environ[name]}'
    current = torch_module.get_num_threads()
    if current not in torch_default_counts():
        return f'torch.set_num_threads({current})'
    return None


def apply_default_torch_threads() -> Optional[int]:
    """Set torch's intra-op threads to DEFAULT_TORCH_THREADS unless the user chose them (see
    the module); returns the count set, or None when nothing was changed."""
    torch = sys.modules.get('torch')
    if torch is None or torch.get_num_threads() == DEFAULT_TORCH_THREADS:
        return None
    chosen = user_chosen_threads(torch)
    if chosen is not None:
        logger.debug('torch intra-op threads left at %d (%s)', torch.get_num_threads(), chosen)
        return None
    logger.info('torch intra-op threads: %d -> %d (small RL networks run fastest on one; set OMP_NUM_THREADS '
                'to choose)', torch.get_num_threads(), DEFAULT_TORCH_THREADS)
    torch.set_num_threads(DEFAULT_TORCH_THREADS)
    return DEFAULT_TORCH_THREADS
