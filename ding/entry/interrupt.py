"""Ctrl-C (SIGINT) and SIGTERM during `ding train` / `ding resume`: finish the current step,
write a run-state checkpoint there, and stop with `RunInterrupted`, which the CLI prints as
`interrupted (SIGINT) at env_step N; resume with: ding resume DIR` (exit 130; SIGTERM: 143).

Why at the end of the step: a checkpoint is only consistent between steps (collected data in
the buffer, the learner between updates), so the signal handler only sets a flag, and the
`StopOnSignals` middleware, registered before `RunStateSaver` so that its post-yield part runs
last, saves and stops. A second signal stops at once, without a new checkpoint (the last one
written still resumes).
"""
import contextlib
import signal
import sys
import threading
from typing import Any, Iterator, Optional

from ding.framework.contract import contract

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class RunInterrupted(Exception):
    """The run stopped on a signal; `exit_code` is the shell's 128 + signal number. `text`
    replaces the message (a distributed run names its last checkpoint instead)."""

    def __init__(self, signum: int, run_dir: str, env_step: Optional[int], text: Optional[str] = None) -> None:
        self.signum, self.run_dir, self.env_step = signum, run_dir, env_step
        self.exit_code = 128 + int(signum)
        name = signal.Signals(signum).name
        if text is None and env_step is None:
            text = (f'interrupted ({name}) again before the step ended, no checkpoint of it; resume with: '
                    f'ding resume {run_dir}')
        elif text is None:
            text = f'interrupted ({name}) at env_step {env_step}; resume with: ding resume {run_dir}'
        super().__init__(text)


def distributed_run_interrupted(signum: int, run_dir: str) -> RunInterrupted:
    """A distributed run stopped by `signum` on the driver: its nodes were ended where they were,
    so what a resume continues from is the run's last run-state checkpoint; named here."""
    from ding.framework.middleware.run_state_file import RunStateUnreadable, read_run_state
    from ding.utils.run_dir import RunDir
    name = signal.Signals(signum).name
    try:
        state, _, _ = read_run_state(RunDir(run_dir).run_state)
    except RunStateUnreadable:
        return RunInterrupted(signum, run_dir, None, f'interrupted ({name}) before the run\'s first checkpoint: '
                                                     f'nothing to resume; start it again with ding train')
    env_step = int(state['ctx']['env_step'])
    return RunInterrupted(signum, run_dir, env_step, f'interrupted ({name}); its last checkpoint is at env_step '
                                                     f'{env_step}; resume with: ding resume {run_dir}')


class SignalInterrupt(KeyboardInterrupt):
    """A signal outside a running pipeline (setup, teardown): unwinds like Ctrl-C, so a run
    directory being set up is removed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def signals_interrupt() -> Iterator[None]:
    """SIGTERM, like SIGINT, raises (SignalInterrupt) inside the block; the handlers before it
    come back after it (the CLI may run inside another program, e.g. a test)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_interrupt(signum: int, frame: Any) -> None:
        raise SignalInterrupt(signum)

    previous = {s: signal.signal(s, raise_interrupt) for s in SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


class StopOnSignals:
    """`with StopOnSignals(saver, run_dir) as stop: task.use(stop); task.use(saver); ...`

    Installs the handlers only in the main thread (Python delivers signals there) and restores
    the previous ones on exit."""

    def __init__(self, saver: Any, run_dir: str) -> None:
        self._saver = saver
        self._run_dir = run_dir
        self._signum: Optional[int] = None
        self._stopping = False  # the checkpoint and stop are asked for
        self._previous = {}
        contract(self, reads=('env_step', ), name='StopOnSignals')

    def __enter__(self) -> 'StopOnSignals':
        if threading.current_thread() is threading.main_thread():
            self._previous = {s: signal.signal(s, self._on_signal) for s in SIGNALS}
        return self

    def __exit__(self, *exc: Any) -> None:
        for s, handler in self._previous.items():
            signal.signal(s, handler)
        self._previous = {}

    def _on_signal(self, signum: int, frame: Any) -> None:
        if self._signum is not None:
            raise RunInterrupted(signum, self._run_dir, None)
        self._signum = signum
        print(f'{signal.Signals(signum).name}: stopping at the end of this step (again to stop at once)',
              file=sys.stderr, flush=True)

    def __call__(self, ctx: Any):
        yield
        if self._signum is None:
            return
        from ding.framework.middleware import _common
        if not self._stopping:
            self._stopping = True
            _common.between_steps(self._save_and_stop, ctx)  # async mode: once no step is in flight

    def _save_and_stop(self, ctx: Any) -> None:
        from ding.framework.middleware import _common
        if _common.current_task().finish:
            return  # the run ended with this step: its final checkpoint is written, nothing to resume
        self._saver.save(ctx)
        raise RunInterrupted(self._signum, self._run_dir, ctx.env_step)
