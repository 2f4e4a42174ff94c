"""`offline_progress`: the `progress.csv` and `result.json` of an offline run, in the layout the
online runs' `progress_reporter` writes (so `ding plot` and any reader of those files take both):
a row at each evaluation and one at the end, both files rewritten atomically at each row.

An offline run takes no env steps: its rows count updates (`train_iter`) and epochs
(`train_epoch`), and `env_step` / `env_episode` are 0. Register it right after the run-state
saver: on resume its first step drops the rows written after the checkpoint it resumed from.
"""
import math
import time
from typing import Any, Dict, List

from ding.framework.contract import contract
from ding.framework.middleware import _common
from ding.framework.middleware.progress import eval_columns, read_rows, record_row, train_columns
from ding.utils.run_dir import RunDir


def offline_progress(save_dir: str) -> Any:
    run_dir = RunDir(save_dir)
    rows: List[Dict[str, Any]] = []
    clock = {'start': None, 'offset': 0.0}

    def _start(ctx: Any) -> None:
        clock['start'] = time.perf_counter()
        if ctx.train_iter > 0:  # resumed: keep the rows up to the checkpoint
            rows.extend(r for r in read_rows(run_dir.result_json) if r['train_iter'] <= ctx.train_iter)
            if rows:
                clock['offset'] = float(rows[-1]['time_s'])

    def _progress(ctx: Any):
        if clock['start'] is None:
            _start(ctx)
        yield
        if not (math.isfinite(ctx.eval_value) or _common.current_task().finish):
            return
        record_row(run_dir, rows, {
            'env_step': 0, 'train_iter': int(ctx.train_iter), 'env_episode': 0, **eval_columns(ctx),
            'time_s': round(clock['offset'] + time.perf_counter() - clock['start'], 3), 'env_steps_per_s': 0.0,
            'train_epoch': int(ctx.train_epoch), **train_columns(ctx)})

    return contract(_progress, reads=('train_iter', 'train_epoch'), name='offline_progress')
