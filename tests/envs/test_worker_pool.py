"""The manager's side of worker processes: failures at start and on the way."""
import multiprocessing

import pytest

from ding.envs.env_manager.worker_pool import WorkerFailure, WorkerHandle, gather


class _RefusingContext:
    """A multiprocessing context whose processes cannot start (e.g. fork refused)."""

    def __init__(self) -> None:
        self.real = multiprocessing.get_context('fork')
        self.pipes = []

    def Pipe(self):  # noqa: N802 - mirrors multiprocessing's name
        pair = self.real.Pipe()
        self.pipes.append(pair)
        return pair

    def Process(self, **kwargs):  # noqa: N802
        process = self.real.Process(**kwargs)

        def refuse():
            raise OSError('no more processes')

        process.start = refuse
        return process


def test_a_worker_that_cannot_start_raises_its_own_error_and_leaves_nothing_to_stop():
    ctx = _RefusingContext()
    handle = WorkerHandle(ctx, b'', [0, 1])
    with pytest.raises(OSError, match='no more processes'):
        handle.launch()
    assert handle.process is None and handle.conn is None
    assert all(end.closed for pair in ctx.pipes for end in pair)
    handle.stop()  # nothing started: a no-op, not an AssertionError from multiprocessing


def _exit_at_once(*args):
    raise SystemExit(3)


def test_gather_without_deadline_reports_a_worker_that_died():
    ctx = multiprocessing.get_context('fork')
    handle = WorkerHandle(ctx, b'', [4])
    parent, child = ctx.Pipe()
    handle.process = ctx.Process(target=_exit_at_once, args=(child, ))
    handle.process.start()
    child.close()
    handle.conn = parent
    result = gather([handle], None)[handle]
    assert isinstance(result, WorkerFailure) and result.kind == 'died'
    assert 'exit code 3' in result.text and '[4]' in result.text
    handle.stop(graceful=False)
