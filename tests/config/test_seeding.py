import random

import numpy as np
import torch

from ding.utils import set_pkg_seed


def draw():
    return random.random(), float(np.random.rand()), float(torch.rand(1))


def test_set_pkg_seed_repeats_python_numpy_and_torch():
    set_pkg_seed(11, use_cuda=False)
    first = draw()
    set_pkg_seed(11)
    assert draw() == first
    set_pkg_seed(12)
    assert draw() != first
