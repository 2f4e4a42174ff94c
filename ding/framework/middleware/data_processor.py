"""The data middlewares as one real module, which ding/compat/paths.py maps
`ding.framework.middleware.functional.data_processor` to.

It holds `offline_data_saver`, which writes through this module's `offline_data_save_type` (so
patching that name here, as tests do, reaches the saver), and the other data middlewares; they
live in data_push.py, data_fetcher.py and offline.py.
"""
from typing import Any

from ding.data.offline_save import DATA_TYPES, offline_data_save_type  # noqa: F401  (looked up per call)
from ding.framework.contract import contract
from ding.framework.middleware.data_fetcher import offpolicy_data_fetcher  # noqa: F401
from ding.framework.middleware.data_push import buffer_saver, data_pusher, sqil_data_pusher  # noqa: F401
from ding.framework.middleware.offline import offline_data_fetcher  # noqa: F401


def offline_data_saver(data_path: str, data_type: str = 'hdf5') -> Any:
    """Saves `ctx.trajectories` with `offline_data_save_type` (for 'hdf5', `x.pkl` is written as
    `x_demos.hdf5`; see ding/data/offline_save.py) and clears the field."""
    if data_type not in DATA_TYPES:
        raise ValueError(f'offline_data_saver: data_type must be one of {DATA_TYPES}, got {data_type!r}')

    def _save(ctx: Any) -> None:
        if ctx.trajectories is None:
            raise RuntimeError('offline_data_saver: ctx.trajectories is None; put a collector before it')
        offline_data_save_type(ctx.trajectories, data_path, data_type)
        ctx.trajectories = None

    return contract(_save, reads=('trajectories', ), writes=('trajectories', ), name='offline_data_saver')
