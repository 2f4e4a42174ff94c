"""async_mode shares torch's intra-op threads among the stages that run at once, so a learner
and a collector do not oversubscribe a small machine; the setting is restored after the run."""
import pytest
import torch

from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.thread_budget import async_thread_budget, torch_thread_budget


@pytest.mark.parametrize('n_stages, max_lag, cores, expected', [
    (4, 1, 2, 1),  # two steps in flight on 2 cores: one thread each
    (4, 1, 16, 8),
    (4, 0, 2, 2),  # no overlap: one stage at a time keeps every core
    (1, 3, 8, 8),  # a single stage never runs beside another
    (5, 2, 2, 1),  # never below one
])
def test_budget_divides_the_cores_among_concurrent_stages(n_stages, max_lag, cores, expected):
    assert async_thread_budget(n_stages, max_lag, cores=cores) == expected


@pytest.fixture
def threads():
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


def _record_threads(seen):
    def record(ctx):
        seen.append(torch.get_num_threads())
        yield
    return record


def test_async_run_uses_the_budget_then_restores(threads):
    torch.set_num_threads(2)
    seen = []
    with task.start(async_mode=True, ctx=OnlineRLContext(), max_lag=1, async_schedule='overlap'):
        task.use(_record_threads(seen))
        task.use(lambda ctx: None)
        task.run(3)
    expected = async_thread_budget(2, 1)
    assert seen == [min(2, expected)] * 3
    assert torch.get_num_threads() == 2


def test_async_run_takes_an_explicit_thread_count(threads):
    torch.set_num_threads(2)
    seen = []
    with task.start(async_mode=True, ctx=OnlineRLContext(), torch_threads=1, async_schedule='overlap'):
        task.use(_record_threads(seen))
        task.use(lambda ctx: None)
        task.run(2)
    assert seen == [1, 1]
    assert torch.get_num_threads() == 2


@pytest.mark.parametrize('schedule', ['inline', 'auto'])
def test_inline_steps_keep_the_budget(threads, schedule):
    # switching torch's threads mid-run made inline steps slower, so every step runs with the budget
    torch.set_num_threads(2)
    seen = []
    with task.start(async_mode=True, ctx=OnlineRLContext(), torch_threads=1, async_schedule=schedule):
        task.use(_record_threads(seen))
        task.use(lambda ctx: None)
        task.run(12)
    assert seen == [1] * 12
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


def test_a_pipeline_that_cannot_overlap_keeps_every_thread(threads):
    # with an on-policy learner last every step runs alone, as in sync mode, so it gets sync's threads
    torch.set_num_threads(2)
    seen = []
    with task.start(async_mode=True, ctx=OnlineRLContext(), max_lag=1):
        task.use(_record_threads(seen))
        task.use(_fresh_weights_learner)
        task.run(3)
    assert seen == [2, 2, 2]
    assert task.async_schedule_summary['schedule'] == 'inline'
