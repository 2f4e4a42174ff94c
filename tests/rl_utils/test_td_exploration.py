import math

import pytest
import torch

from ding.rl_utils import epsilon_greedy, get_epsilon_greedy_fn


def test_exp_schedule_values():
    eps = get_epsilon_greedy_fn(0.95, 0.1, 10000, 'exp')
    assert eps(0) == pytest.approx(0.95)
    assert eps(10000) == pytest.approx(0.1 + 0.85 * math.exp(-1))
    assert eps(5000) == pytest.approx(0.1 + 0.85 * math.exp(-0.5))
    assert eps(10**7) == pytest.approx(0.1)


def test_linear_schedule_values_both_directions():
    down = get_epsilon_greedy_fn(1.0, 0.1, 100, type_='linear')
    assert [down(0), down(50), down(100), down(200)] == pytest.approx([1.0, 0.55, 0.1, 0.1])
    up = get_epsilon_greedy_fn(0.0, 1.0, 10, type='linear')
    assert [up(0), up(5), up(20)] == pytest.approx([0.0, 0.5, 1.0])


def test_schedule_errors():
    with pytest.raises(ValueError, match="unknown epsilon schedule type 'cosine'"):
        get_epsilon_greedy_fn(1.0, 0.1, 100, 'cosine')
    with pytest.raises(ValueError, match='decay must be > 0'):
        get_epsilon_greedy_fn(1.0, 0.1, 0)


def test_epsilon_greedy_greedy_cases():
    logit = torch.tensor([[0.0, 3.0, 1.0], [5.0, 0.0, 1.0]])
    assert epsilon_greedy(logit, 0.0).tolist() == [1, 0]
    assert epsilon_greedy(logit, -1).tolist() == [1, 0]


def test_epsilon_greedy_eps_one_is_uniform_and_seeded():
    logit = torch.tensor([[0.0, 3.0, 1.0]]).expand(30000, 3)
    torch.manual_seed(0)
    first = epsilon_greedy(logit, 1.0)
    torch.manual_seed(0)
    assert torch.equal(epsilon_greedy(logit, 1.0), first)
    freq = torch.bincount(first, minlength=3).float() / len(first)
    assert freq.tolist() == pytest.approx([1 / 3] * 3, abs=0.015)  # ~5 standard deviations


def test_epsilon_greedy_half_prefers_greedy():
    logit = torch.tensor([[0.0, 3.0, 1.0]]).expand(30000, 3)
    torch.manual_seed(1)
    freq = torch.bincount(epsilon_greedy(logit, 0.5), minlength=3).float() / 30000
    # greedy action: 0.5 + 0.5 / 3; others 0.5 / 3
    assert freq.tolist() == pytest.approx([1 / 6, 2 / 3, 1 / 6], abs=0.015)
