"""GAE and discounted returns against hand-computed values."""
import numpy as np
import torch

from ding.rl_utils import discounted_return, gae


def test_gae_stops_at_terminated_and_bootstraps_truncated():
    # one sequence: steps 0-1 an episode that terminates, step 2 a truncated one, step 3 cut off
    reward = np.array([1., 1., 1., 1.], dtype=np.float32)
    value = np.array([1., 2., 3., 4.], dtype=np.float32)
    next_value = np.array([2., 99., 10., 20.], dtype=np.float32)  # 99 must be ignored (terminated)
    terminated = np.array([False, True, False, False])
    episode_end = np.array([False, True, True, True])
    adv = gae(reward, value, next_value, terminated, episode_end, gamma=0.5, lambda_=0.5)
    # deltas: 1 + 0.5*2 - 1 = 1; 1 - 2 = -1; 1 + 5 - 3 = 3; 1 + 10 - 4 = 7
    # A1 = -1, A0 = 1 + 0.25 * -1 = 0.75
    np.testing.assert_allclose(adv, [0.75, -1., 3., 7.])
    assert adv.dtype == np.float32


def test_gae_time_major_columns_are_independent():
    reward = np.array([[1., 0.], [1., 0.], [1., 1.]], dtype=np.float32)
    value = np.zeros((3, 2), dtype=np.float32)
    next_value = np.zeros((3, 2), dtype=np.float32)
    no = np.zeros((3, 2), dtype=bool)
    end = no.copy()
    end[-1] = True
    adv = gae(reward, value, next_value, no, end, gamma=1.0, lambda_=1.0)
    np.testing.assert_allclose(adv, [[3., 1.], [2., 1.], [1., 1.]])


def test_gae_keeps_torch_type():
    adv = gae(torch.ones(2), torch.zeros(2), torch.zeros(2), torch.zeros(2), torch.tensor([False, True]),
              gamma=0.5, lambda_=1.0)
    assert isinstance(adv, torch.Tensor)
    assert adv.tolist() == [1.5, 1.0]


def test_discounted_return_restarts_after_each_episode():
    ret = discounted_return(np.ones(4, dtype=np.float32), np.array([False, True, False, True]), gamma=0.5)
    np.testing.assert_allclose(ret, [1.5, 1., 1.5, 1.])
