"""The vectorised action checks for each space kind."""
import numpy as np
import pytest
import torch
from gymnasium import spaces

from ding.envs.env_manager.action_check import make_action_splitter


def test_discrete_gives_python_ints_and_accepts_tensors():
    split = make_action_splitter(spaces.Discrete(3, start=1), 2)
    assert split(np.array([1, 3])) == [1, 3]
    assert split(torch.tensor([2, 1])) == [2, 1]
    with pytest.raises(ValueError, match='env 1: action 0'):
        split(np.array([1, 0]))


def test_box_rows_cast_to_space_dtype():
    split = make_action_splitter(spaces.Box(-2.0, 2.0, shape=(2, ), dtype=np.float32), 2)
    rows = split(np.array([[0.5, -2.0], [2.0, 1.0]], dtype=np.float64))
    assert [r.dtype for r in rows] == [np.float32, np.float32]
    assert [r.tolist() for r in rows] == [[0.5, -2.0], [2.0, 1.0]]
    with pytest.raises(ValueError, match=r'shape \(2,\), expected \(2, 2\)'):
        split(np.zeros(2))


def test_multi_discrete_and_multi_binary():
    split = make_action_splitter(spaces.MultiDiscrete([2, 3]), 2)
    assert [r.tolist() for r in split(np.array([[1, 2], [0, 0]]))] == [[1, 2], [0, 0]]
    with pytest.raises(ValueError, match='env 0'):
        split(np.array([[2, 0], [0, 0]]))
    binary = make_action_splitter(spaces.MultiBinary(2), 1)
    with pytest.raises(ValueError, match='env 0'):
        binary(np.array([[0, 2]]))


def test_unchecked_spaces_only_count():
    split = make_action_splitter(spaces.Tuple([spaces.Discrete(2)]), 2)
    assert split([(0, ), (1, )]) == [(0, ), (1, )]
    with pytest.raises(ValueError, match='1 actions for 2 envs'):
        split([(0, )])
