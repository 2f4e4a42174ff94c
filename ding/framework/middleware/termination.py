"""`termination_checker`: ends the run past an env-step or train-iteration budget."""
from typing import Any, Optional

from ding.framework.contract import contract
from ding.framework.middleware import _common


def termination_checker(max_env_step: Optional[int] = None, max_train_iter: Optional[int] = None) -> Any:
    """Sets `task.finish` once `ctx.env_step >= max_env_step` or `ctx.train_iter >= max_train_iter`."""

    def _check(ctx: Any) -> None:
        if max_env_step is not None and getattr(ctx, 'env_step', 0) >= max_env_step:
            _common.current_task().end(f'max_env_step {max_env_step} reached')
        if max_train_iter is not None and ctx.train_iter >= max_train_iter:
            _common.current_task().end(f'max_train_iter {max_train_iter} reached')

    # it reads only the counters it has a budget for: an offline pipeline has no env_step
    reads = tuple(name for name, limit in (('env_step', max_env_step), ('train_iter', max_train_iter))
                  if limit is not None)
    return contract(_check, reads=reads)
