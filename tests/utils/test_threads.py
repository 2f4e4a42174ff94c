"""`task.start()` gives torch one intra-op thread unless the user chose (OMP_NUM_THREADS /
MKL_NUM_THREADS, torch.set_num_threads before, async mode's torch_threads)."""
import pytest
import torch

from ding.framework import task
from ding.utils import threads


@pytest.fixture
def torch_default(monkeypatch):
    """torch at '4 threads, its default on this machine', no thread variables set; restored after."""
    before = torch.get_num_threads()
    for name in threads.THREAD_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(threads, 'torch_default_counts', lambda: {4})
    torch.set_num_threads(4)
    yield
    task.stop()
    torch.set_num_threads(before)


def test_task_start_sets_one_thread_when_torch_is_at_its_default(torch_default):
    task.start()
    assert torch.get_num_threads() == 1


@pytest.mark.parametrize('name', threads.THREAD_ENV_VARS)
def test_a_thread_variable_in_the_environment_is_left_alone(torch_default, monkeypatch, name):
    monkeypatch.setenv(name, '4')
    task.start()
    assert torch.get_num_threads() == 4


def test_set_num_threads_called_before_is_left_alone(torch_default):
    torch.set_num_threads(3)
    task.start()
    assert torch.get_num_threads() == 3


def test_async_torch_threads_is_a_choice(torch_default):
    task.start(async_mode=True, torch_threads=2)
    assert torch.get_num_threads() == 4  # the async pipeline budgets its 2 while it runs


def test_torch_default_counts_include_the_logical_cores():
    import os
    assert (os.cpu_count() or 1) in threads.torch_default_counts()
