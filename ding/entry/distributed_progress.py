"""The live progress line of a distributed run, on the driver's terminal.

A one-process run prints it from its `progress_reporter`. In a distributed run that middleware
runs on the evaluator node, whose stderr reaches the driver only through Ray's log forwarding
(prefixed, and late), so there it writes the files only, and the driver follows the rows the
evaluator writes to `result.json` (rewritten atomically at each evaluation) and prints the same
line from each new row (`format_status`): env steps, rate, train iterations, last evaluation,
ETA. The ETA goes by the pace between the last two rows; the first row has none yet.

The run directory must be on a file system the driver sees (always so for a local cluster; with
`--address` when the run directory is shared): otherwise no line appears, the run is unchanged.
"""
import sys
import threading
from typing import Any, Dict, Optional, TextIO

from ding.framework.middleware.progress import format_status, read_rows
from ding.utils.run_dir import RunDir


class ProgressTail:
    """`with ProgressTail(run_dir, max_env_step): launch(...)`: prints a status line for each row
    appended to `run_dir/result.json` after `after_env_step` (a resumed run's rows up to its
    checkpoint are the earlier run's), every `poll_s` seconds and once more on exit."""

    def __init__(self, run_dir: str, max_env_step: Optional[int], after_env_step: int = -1,
                 stream: Optional[TextIO] = None, poll_s: float = 0.5) -> None:
        self._result_json = RunDir(run_dir).result_json
        self._max_env_step = max_env_step
        self._out = stream if stream is not None else sys.stderr
        self._tty = bool(getattr(self._out, 'isatty', lambda: False)())
        self._poll_s = poll_s
        self._last: Optional[Dict[str, Any]] = None  # the row last shown
        self._after = after_env_step
        self._last_eval: Optional[float] = None
        self._shown_any = False
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        for row in self._rows():  # the last evaluation before a resume: shown until a new one comes
            if row['env_step'] <= after_env_step and row.get('eval_return_mean') is not None:
                self._last_eval = row['eval_return_mean']

    def __enter__(self) -> 'ProgressTail':
        self._thread = threading.Thread(target=self._follow, name='ding-progress-tail', daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self.poll()  # the rows written as the run ended
        if self._tty and self._shown_any:
            self._out.write('\n')  # the in-place line stays on screen
            self._out.flush()

    def _follow(self) -> None:
        while not self._stop.wait(self._poll_s):
            self.poll()

    def _rows(self) -> list:
        try:
            return read_rows(self._result_json)
        except (OSError, ValueError):  # not written yet, or removed (a run stopped before its first checkpoint)
            return []

    def poll(self) -> int:
        """Show the rows new since the last call; returns how many."""
        new = [r for r in self._rows() if r['env_step'] > self._after]
        for row in new:
            self._show(row)
        return len(new)

    def _show(self, row: Dict[str, Any]) -> None:
        if row.get('eval_return_mean') is not None:
            self._last_eval = row['eval_return_mean']
        eta_rate = 0.0  # the first row: no ETA yet (start-up and warm-up are not the pace of the run)
        if self._last is not None and row['time_s'] > self._last['time_s']:
            eta_rate = (row['env_step'] - self._last['env_step']) / (row['time_s'] - self._last['time_s'])
        text = format_status(row['env_step'], float(row.get('env_steps_per_s') or 0.0), row['train_iter'],
                             self._last_eval, self._max_env_step, eta_rate)
        self._out.write(('\r\x1b[2K' + text) if self._tty else text + '\n')
        self._out.flush()
        self._shown_any = True
        self._last, self._after = row, row['env_step']
