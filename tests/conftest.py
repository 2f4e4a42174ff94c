"""Suite-wide: one torch thread per test. The networks here are tiny, and on a busy 2-core
machine torch's thread pool makes each small update many times slower (measured 1.8 ms
against 180 ms). A test about threads sets its own count; the count is restored after each."""
import pytest
import torch


@pytest.fixture(autouse=True)
def one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# CI runs the slow set on pytest-xdist workers (`make test-slow`). The Ray leak check
# (tests/distributed/conftest.py) looks at every process on the machine, so the tests that start
# Ray run on one worker, one after another, while the others spread over the rest;
# tests/foundation/test_ray_grouping.py keeps this list complete. (A scheduler of our own:
# xdist's `xdist_group` marks are not honoured under pytest 9.)
RAY_STARTERS = ('tests/distributed/', 'tests/entry/test_distributed_interrupt.py', 'tests/entry/test_distributed_plan.py',
                'tests/entry/test_distributed_progress.py', 'tests/resume/test_async_run_state.py',
                'tests/benchmarks/test_atari_split.py')  # atari_split.py measures the object-store hop on Ray


# Tests sharing a module-scoped fixture of long runs (the tuned pairs' held-out runs, which the
# offline pairs collect their datasets from) stay on one worker, so each run is made once.
SHARED_RUNS = ('tests/learning/test_tuned_pairs.py::test_pair_reaches',
               'tests/learning/test_tuned_pairs.py::test_offline_pair')


def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class Units(LoadScopeScheduling):
        """Each test is a unit of its own, but the Ray tests are one unit, and so are SHARED_RUNS."""

        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(RAY_STARTERS):
                return 'ray'
            return 'shared_runs' if nodeid.startswith(SHARED_RUNS) else nodeid

    return Units(config, log)
