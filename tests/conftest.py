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
