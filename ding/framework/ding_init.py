"""`ding_init(cfg)`: per-run setup that middlewares rely on (the tensorboard writer)."""
import os
from typing import Any

from ding.utils.keys import lookup
from ding.utils.writer import RunWriter, init_writer


def ding_init(cfg: Any) -> RunWriter:
    """Set up the run's tensorboard writer under `<cfg.exp_name>/log` (used by online_logger)."""
    exp_name = lookup(cfg, 'exp_name')
    return init_writer(os.path.join(str(exp_name), 'log'))
