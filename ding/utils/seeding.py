"""One call that seeds every random number generator a run draws from."""
import random

import numpy as np
import torch


def set_pkg_seed(seed: int, use_cuda: bool = True) -> None:
    """Seed python's `random`, numpy's global generator, torch (CPU) and, when `use_cuda` and a
    GPU is present, every CUDA device. Env and action-space generators are seeded by their owners
    (`env_manager.seed`, `action_space.seed`)."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if use_cuda and torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
