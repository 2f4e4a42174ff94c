"""`offline_progress`: the `progress.csv` and `result.json` of an offline run, in the layout the
online runs' `progress_reporter` writes (so `ding plot` and any reader of those files take both):
a row at each evaluation and one at the end, both files rewritten atomically at each row.

An offline run takes no env steps: its rows count updates (`train_iter`) and epochs
(`train_epoch`), and `env_step` / `env_episode` are 0. Register it right after the run-state
saver: on resume its first step drops the rows written after the checkpoint it resumed from.
"""
import json
import math
import time
from typing import Any, Dict, List

from ding.framework.contract import contract
from ding.framework.middleware import _common
from ding.framework.middleware.logger import mean_scalars
from ding.framework.middleware.progress import read_rows, rows_to_csv
from ding.utils.fileio import atomic_write_text
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

    def _row(ctx: Any) -> Dict[str, Any]:
        returns = (ctx.eval_output or {}).get('episode_return') if math.isfinite(ctx.eval_value) else None
        mean = float(ctx.eval_value) if returns is not None else None
        std = math.sqrt(sum((r - mean) ** 2 for r in returns) / len(returns)) if returns else None
        row = {'env_step': 0, 'train_iter': int(ctx.train_iter), 'env_episode': 0, 'eval_return_mean': mean,
               'eval_return_std': std, 'eval_episodes': len(returns) if returns else None,
               'time_s': round(clock['offset'] + time.perf_counter() - clock['start'], 3), 'env_steps_per_s': 0.0,
               'train_epoch': int(ctx.train_epoch)}
        row.update({f'train_{k}': v for k, v in mean_scalars(ctx.train_output).items()} if ctx.train_output else {})
        return row

    def _progress(ctx: Any):
        if clock['start'] is None:
            _start(ctx)
        yield
        if not (math.isfinite(ctx.eval_value) or _common.current_task().finish):
            return
        row = _row(ctx)
        if rows and rows[-1]['train_iter'] == row['train_iter']:
            rows[-1] = row  # the final row of a step that also evaluated
        else:
            rows.append(row)
        atomic_write_text(run_dir.result_json, ''.join(json.dumps(r) + '\n' for r in rows))
        atomic_write_text(run_dir.progress_csv, rows_to_csv(rows))

    return contract(_progress, reads=('train_iter', 'train_epoch'), name='offline_progress')
