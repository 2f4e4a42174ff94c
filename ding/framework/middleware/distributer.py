"""Distributed exchange points. Without a router (`task.router.is_active` False) each is a
no-op, so single-process pipelines can keep them in their `task.use` chain. In a distributed
run (`ditask`, `Parallel.runner`) each constructor returns the Ray-backed implementation from
`ding/framework/distributed/exchangers.py` (imported only then)."""
from typing import Any

from ding.framework.contract import contract
from ding.framework.middleware import _common


class _Exchange:
    """Base: a no-op middleware locally; the real exchanger when a router is active."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if not _common.is_distributed():
            return super().__new__(cls)
        task = _common.current_task()
        if not task.roles and cls.__name__ in ('ContextExchanger', 'ModelExchanger'):
            _common.warn_once(f'{cls.__name__}.roles', f'{cls.__name__}: this node declared no role '
                              '(task.add_role); the exchanger does nothing')
            return task.void()
        from ding.framework.distributed import exchangers
        return getattr(exchangers, cls.__name__)(*args, **kwargs)

    def __init__(self) -> None:
        contract(self, name=type(self).__name__, waits_outside_gil=True)  # on Ray messages

    def __call__(self, ctx: Any) -> None:
        pass


class ContextExchanger(_Exchange):
    """Moves collected data to the learner and counters back (distributed only)."""

    def __init__(self, skip_n_iter: int = 1, storage_loader: Any = None, **kwargs: Any) -> None:
        # distributed only: max_inflight, wait_timeout, load_timeout, learner (the node a collector sends to)
        super().__init__()
        self.skip_n_iter = skip_n_iter
        self.storage_loader = storage_loader


class ModelExchanger(_Exchange):
    """The learner publishes weights; collectors and evaluators load the newest (distributed only)."""

    def __init__(self, model: Any, model_loader: Any = None, **kwargs: Any) -> None:
        super().__init__()
        self.model = model
        self.model_loader = model_loader


class PeriodicalModelExchanger(_Exchange):
    """Weights sent every `period` steps (distributed only)."""

    def __init__(self, model: Any, mode: str = 'send', period: int = 1, delay_toleration: float = float('inf'),
                 stale_toleration: int = 1, event_name: str = 'model_exchanger', model_loader: Any = None) -> None:
        super().__init__()
        self.model, self.mode, self.period = model, mode, period


class Barrier(_Exchange):
    """Waits until `attch_from_nums` peers reach the same step (distributed only)."""

    def __init__(self, attch_from_nums: int = 0, timeout: int = 60) -> None:
        super().__init__()
        self.attch_from_nums, self.timeout = attch_from_nums, timeout
