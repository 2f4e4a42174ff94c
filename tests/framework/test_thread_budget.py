"""async_mode shares torch's intra-op threads among the steps in flight, so a learner and a
collector do not oversubscribe a small machine; the setting is restored after the run."""
import os

import pytest
import torch

from ding.framework import task
from ding.framework.async_pipeline import torch_thread_budget
from ding.framework.context import OnlineRLContext


@pytest.fixture
def threads(monkeypatch):
    # the user chose torch's threads (task.start() would otherwise give it one: ding/utils/threads.py)
    monkeypatch.setenv('OMP_NUM_THREADS', '2')
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_budget_only_lowers_and_restores(threads):
    torch.set_num_threads(2)
    with torch_thread_budget(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == 2
    with torch_thread_budget(4):  # a user who chose fewer threads keeps them
        assert torch.get_num_threads() == 2
    with torch_thread_budget(None):
        assert torch.get_num_threads() == 2


def _record_threads(seen):
    def record(ctx):
        seen.append(torch.get_num_threads())
        yield
    return record


def _run(seen, n_steps, second=lambda ctx: None, **start):
    with task.start(async_mode=True, ctx=OnlineRLContext(), **start):
        task.use(_record_threads(seen))
        task.use(second)
        task.run(n_steps)


def test_async_run_shares_the_cores_between_the_two_steps_in_flight_then_restores(threads):
    torch.set_num_threads(64)  # more than any core count here: the budget is below it
    seen = []
    _run(seen, 3, max_lag=1)
    assert seen == [max(1, len(os.sched_getaffinity(0)) // 2)] * 3
    assert torch.get_num_threads() == 64


def test_async_run_takes_an_explicit_thread_count(threads):
    torch.set_num_threads(2)
    seen = []
    _run(seen, 2, torch_threads=1)
    assert seen == [1, 1]
    assert torch.get_num_threads() == 2


def test_sync_run_leaves_threads_alone(threads):
    torch.set_num_threads(2)
    seen = []
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        task.use(_record_threads(seen))
        task.run(2)
    assert seen == [2, 2]


def _fresh_weights_learner(ctx):
    return None


_fresh_weights_learner.fresh_weights = True  # an on-policy learner: nothing may overtake it


@pytest.mark.parametrize('second, max_lag', [(_fresh_weights_learner, 1), (lambda ctx: None, 0)])
def test_a_pipeline_that_cannot_overlap_keeps_every_thread(threads, second, max_lag):
    # an on-policy learner last, or max_lag=0: one step at a time, as in sync mode, with sync's threads
    torch.set_num_threads(2)
    seen = []
    _run(seen, 3, second, max_lag=max_lag)
    assert seen == [2, 2, 2]
