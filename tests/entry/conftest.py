"""Fixtures shared by the entry tests."""
import numpy as np
import pytest


@pytest.fixture
def dataset(tmp_path):
    """A small offline dataset of CartPole-shaped rows (random actions, reward 1), as a naive .pkl."""
    from ding.data.offline_save import save_offline_data
    rng = np.random.default_rng(0)
    n = 256
    obs = rng.normal(0, 0.05, (n, 4)).astype(np.float32)
    columns = {'obs': obs, 'action': rng.integers(0, 2, n), 'reward': np.ones(n, np.float32),
               'next_obs': obs + 0.01, 'done': np.zeros(n, bool), 'truncated': np.zeros(n, bool)}
    return save_offline_data(columns, str(tmp_path / 'random.pkl'), 'naive')
