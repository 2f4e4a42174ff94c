"""What each worker of a distributed run asks of the cluster: CPUs and GPUs (fractions allowed),
custom Ray resources (to place it on a labelled machine), torch threads, and an optional CPU
pin. Requests the cluster can never satisfy are refused before any actor starts: Ray would
otherwise keep such an actor pending for ever, and the run would hang without a word."""
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence

WORKER_KEYS = ('num_cpus', 'num_gpus', 'resources', 'torch_threads', 'pin_cpu')


class PlacementError(ValueError):
    """The workers ask for more than the cluster has: no actor was started."""


@dataclass
class WorkerOptions:
    num_cpus: float = 0.0  # Ray's reservation; 0 lets actors share cores (2-core machines)
    num_gpus: float = 0.0
    resources: Dict[str, float] = field(default_factory=dict)
    torch_threads: int = 1  # one thread per actor: several actors never oversubscribe the cores
    pin_cpu: bool = False  # pin the actor's process to one core (rlpyt's affinity), chosen by its index

    @classmethod
    def from_mapping(cls, values: Optional[Mapping[str, Any]], where: str = 'worker') -> 'WorkerOptions':
        values = dict(values or {})
        unknown = sorted(set(values) - set(WORKER_KEYS))
        if unknown:
            raise ValueError(f'{where}: unknown key(s) {unknown}; valid: {list(WORKER_KEYS)}')
        opts = cls(**values)
        for name in ('num_cpus', 'num_gpus'):
            value = getattr(opts, name)
            if not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f'{where}: {name} must be a number >= 0, got {value!r}')
        if not isinstance(opts.torch_threads, int) or opts.torch_threads < 1:
            raise ValueError(f'{where}: torch_threads must be an integer >= 1, got {opts.torch_threads!r}')
        return opts

    def actor_options(self) -> Dict[str, Any]:
        options: Dict[str, Any] = {'num_cpus': float(self.num_cpus)}
        if self.num_gpus:
            options['num_gpus'] = float(self.num_gpus)
        if self.resources:
            options['resources'] = dict(self.resources)
        return options


def check_fits(ray: Any, workers: Sequence[WorkerOptions]) -> None:
    """Raise PlacementError when the workers together ask for more than the whole cluster has
    (one machine's share is Ray's to place; this only refuses what can never start)."""
    total = ray.cluster_resources()
    asked: Dict[str, float] = {}
    for w in workers:
        for name, value in (('CPU', w.num_cpus), ('GPU', w.num_gpus), *w.resources.items()):
            asked[name] = asked.get(name, 0.0) + float(value)
    short: List[str] = [f'{name}: {value:g} asked, {total.get(name, 0.0):g} in the cluster'
                        for name, value in sorted(asked.items()) if value > total.get(name, 0.0) + 1e-9]
    if short:
        raise PlacementError('the workers ask for more than the Ray cluster has (' + '; '.join(short) +
                         '); lower the per-role num_cpus/num_gpus or add machines')


def pin_to_core(index: int) -> Optional[int]:
    """Pin this process to core `index` modulo the cores it may use; the core, or None where
    the OS has no affinity call."""
    import os
    if not hasattr(os, 'sched_setaffinity'):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    core = allowed[index % len(allowed)]
    os.sched_setaffinity(0, {core})
    return core
