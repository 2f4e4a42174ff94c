"""`progress_reporter`: what a person watching a run wants to see, and the files a plot needs.

- On a terminal: one status line rewritten in place (env steps, env steps/s, train
  iterations, last evaluation return, ETA when `max_env_step` is set), at most every
  `refresh_s` seconds.
- Not on a terminal (a log file, CI): the same text as plain lines every `print_every_s`
  seconds and at each evaluation.
- Files: a row at each evaluation and at the end of the run, in `progress.csv` and in
  `result.json` (one JSON object per line), both rewritten atomically at each row.

Register it right after `RunStateSaver` (or first): its pre-yield part sees the counters a
resumed run starts from, and drops rows written after that checkpoint, so the files of an
interrupted-then-resumed run read as one run. Its post-yield part sees the step's results.
"""
import csv
import io
import json
import math
import os
import sys
import time
from typing import Any, Dict, List, Optional, TextIO

from ding.framework.contract import contract
from ding.framework.middleware import _common
from ding.framework.middleware.logger import mean_scalars
from ding.utils.fileio import atomic_write_text
from ding.utils.run_dir import RunDir

# the "no bound" default for max_env_step (1e10, as ding/entry/serial.py's --max-env-step): a
# budget this large is no bound to show, and an ETA against it would read as hundreds of years
UNBOUNDED_ENV_STEP = int(1e10)
FIXED_COLUMNS = ('env_step', 'train_iter', 'env_episode', 'eval_return_mean', 'eval_return_std', 'eval_episodes',
                 'time_s', 'env_steps_per_s')


def read_rows(path: str) -> List[Dict[str, Any]]:
    """The rows of a result.json (one JSON object per line); [] when absent."""
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def rows_to_csv(rows: List[Dict[str, Any]]) -> str:
    columns = list(FIXED_COLUMNS)
    for row in rows:
        columns += [k for k in row if k not in columns]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator='\n')
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def format_status(env_step: int, rate: float, train_iter: int, last_eval: Optional[float],
                  max_env_step: Optional[int], eta_rate: Optional[float] = None) -> str:
    """`env_step 12,000/100,000 | 2,400 steps/s | train_iter 6,000 | eval 187.30 | ETA 0:00:32`.
    The ETA uses `eta_rate` (default `rate`); 0 shows `ETA -` (no rate to go by yet). It is
    rounded up, so steps left never read 0:00:00. No bound, or the 1e10 default, shows none."""
    bounded = bool(max_env_step) and max_env_step < UNBOUNDED_ENV_STEP
    step = f'{env_step:,}' + (f'/{max_env_step:,}' if bounded else '')
    parts = [f'env_step {step}', f'{rate:,.0f} steps/s', f'train_iter {train_iter:,}',
             'eval -' if last_eval is None else f'eval {last_eval:.2f}']
    eta_rate = rate if eta_rate is None else eta_rate
    if bounded:
        left = max(0, max_env_step - env_step)
        if left == 0:
            parts.append('ETA 0:00:00')
        elif eta_rate > 0:
            secs = math.ceil(left / eta_rate)
            parts.append(f'ETA {secs // 3600}:{secs % 3600 // 60:02d}:{secs % 60:02d}')
        else:
            parts.append('ETA -')
    return ' | '.join(parts)


def progress_reporter(save_dir: str, max_env_step: Optional[int] = None, refresh_s: float = 0.5,
                      print_every_s: float = 30.0, stream: Optional[TextIO] = None, show: bool = True) -> Any:
    """Live progress (unless `show=False`) plus `progress.csv` / `result.json` under `save_dir`
    (see the module doc)."""
    run_dir = RunDir(save_dir)
    out = stream if stream is not None else sys.stderr
    tty = bool(getattr(out, 'isatty', lambda: False)())
    rows: List[Dict[str, Any]] = []
    clock = {'start': None, 'offset': 0.0, 'last_print': -math.inf, 'rate_t': None, 'rate_step': 0, 'rate': 0.0,
             'steps': 0}
    last_eval: List[Optional[float]] = [None]

    def _start(ctx: Any) -> None:
        now = time.perf_counter()
        clock.update(start=now, rate_t=now, rate_step=ctx.env_step)
        if ctx.env_step > 0 or ctx.train_iter > 0:  # resumed: keep what the checkpoint had seen
            rows.extend(rows_before_checkpoint(read_rows(run_dir.result_json), ctx.env_step, ctx.train_iter))
            if rows:
                clock['offset'] = float(rows[-1]['time_s'])
                last_eval[0] = next((r['eval_return_mean'] for r in reversed(rows)
                                     if r['eval_return_mean'] is not None), None)

    def _rate(ctx: Any, now: float) -> float:
        dt = now - clock['rate_t']
        if dt >= 1.0:
            clock['rate'] = (ctx.env_step - clock['rate_step']) / dt
            clock['rate_t'], clock['rate_step'] = now, ctx.env_step
        elif clock['rate'] == 0.0 and dt > 0:
            return (ctx.env_step - clock['rate_step']) / dt
        return clock['rate']

    def _write_row(ctx: Any, now: float, rate: float) -> None:
        row = {'env_step': int(ctx.env_step), 'train_iter': int(ctx.train_iter), 'env_episode': int(ctx.env_episode),
               **eval_columns(ctx), 'time_s': round(clock['offset'] + now - clock['start'], 3),
               'env_steps_per_s': round(rate, 1),
               # env faults so far (env_faults.py), collector and evaluator envs: restarts, and
               # the episodes they dropped
               'env_restarts': int(getattr(ctx, 'env_restarts', 0)) + int(getattr(ctx, 'eval_env_restarts', 0)),
               'dropped_episodes': int(getattr(ctx, 'dropped_episodes', 0))
               + int(getattr(ctx, 'eval_dropped_episodes', 0))}
        record_row(run_dir, rows, {**row, **train_columns(ctx)})

    def _show(text: str, final: bool) -> None:
        if tty:
            out.write('\r\x1b[2K' + text + ('\n' if final else ''))
        else:
            out.write(text + '\n')
        out.flush()

    def _progress(ctx: Any):
        if clock['start'] is None:
            _start(ctx)
        yield
        now = time.perf_counter()
        rate = eta_rate = _rate(ctx, now)
        clock['steps'] += 1
        if clock['steps'] == 1:
            # The first step is start-up and, off-policy, the whole random warm-up (no training, far
            # faster than what follows): an ETA from it would read 0:00:00. Rate the steps after it.
            clock.update(rate_t=now, rate_step=ctx.env_step, rate=0.0)
            eta_rate = 0.0
        evaluated = math.isfinite(ctx.eval_value)
        finished = bool(_common.current_task().finish)
        if evaluated:
            last_eval[0] = float(ctx.eval_value)
        if evaluated or finished:
            _write_row(ctx, now, rate)
        every = refresh_s if tty else print_every_s
        if show and (evaluated or finished or now - clock['last_print'] >= every):
            clock['last_print'] = now
            _show(format_status(ctx.env_step, rate, ctx.train_iter, last_eval[0], max_env_step, eta_rate), finished)

    # Only the kept counters are declared: the step's results are read after the yield.
    return contract(_progress, reads=('env_step', 'train_iter', 'env_episode'), name='progress_reporter')


def eval_columns(ctx: Any) -> Dict[str, Any]:
    """A row's evaluation columns: the step's mean return, its spread and episode count (None
    when the step did not evaluate)."""
    returns = (ctx.eval_output or {}).get('episode_return') if math.isfinite(ctx.eval_value) else None
    return {'eval_return_mean': float(ctx.eval_value) if returns is not None else None,
            'eval_return_std': float(_std(returns)) if returns else None,
            'eval_episodes': len(returns) if returns else None}


def train_columns(ctx: Any) -> Dict[str, Any]:
    """A row's training columns: the step's training scalars, averaged, as `train_<name>`."""
    return {f'train_{k}': v for k, v in mean_scalars(ctx.train_output).items()} if ctx.train_output else {}


def rows_before_checkpoint(rows: List[Dict[str, Any]], env_step: int, train_iter: int) -> List[Dict[str, Any]]:
    """The rows an online run resumed from a checkpoint at (env_step, train_iter) keeps: those the
    checkpoint had seen. A distributed evaluator pairs its own (lagging) count of the collectors'
    steps with the learner's train_iter, so a row at the checkpoint's env_step may carry another
    train_iter. Such a row is dropped: the resumed run writes that env_step's row again, and the
    file must not hold it twice."""
    return [r for r in rows if r['train_iter'] <= train_iter and (r['env_step'] < env_step or (
        r['env_step'] == env_step and r['train_iter'] == train_iter))]


def record_row(run_dir: RunDir, rows: List[Dict[str, Any]], row: Dict[str, Any]) -> None:
    """Add `row` to `rows`, replacing the last row when it is of the same step (the final row of
    a step that also evaluated), and rewrite result.json and progress.csv atomically."""
    if rows and rows[-1]['env_step'] == row['env_step'] and rows[-1]['train_iter'] == row['train_iter']:
        rows[-1] = row
    else:
        rows.append(row)
    atomic_write_text(run_dir.result_json, ''.join(json.dumps(r) + '\n' for r in rows))
    atomic_write_text(run_dir.progress_csv, rows_to_csv(rows))


def _std(values: List[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
