"""`Parallel`: DI-engine's multi-process launcher. Distributed runs will go through Ray
(a later issue); until then using it fails with a clear message, while importing works."""
from typing import Any

_MESSAGE = (
    'ding.framework.Parallel is not available: multi-process runs will go through Ray '
    '(pip install "ding[dist]"), which is not implemented yet. Run the pipeline in one process '
    '(task.start(async_mode=True) overlaps collection and training there).'
)


class Parallel:
    """Placeholder with the DI-engine name; every use raises NotImplementedError."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_MESSAGE)

    @classmethod
    def runner(cls, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(_MESSAGE)
