"""Run under `torchrun --nproc_per_node N`: a DQNPolicy with multi_gpu=True trains inside
DDPContext on batches that differ per rank; rank r saves its final weights (rank 0 also its
initial ones) to OUT_DIR for the test to compare."""
import os
import sys

import numpy as np
import torch

from ding.policy import DQNPolicy
from ding.utils import DDPContext, get_rank, get_world_size

STEPS, BATCH = 6, 16


def make_cfg(multi_gpu: bool) -> dict:
    return dict(multi_gpu=multi_gpu, model=dict(obs_shape=4, action_shape=3, encoder_hidden_size_list=[16, 16]),
                learn=dict(batch_size=BATCH, learning_rate=1e-2, target_update_freq=3, grad_norm=0.5))


def batch(step: int, rank: int) -> dict:
    rng = np.random.default_rng(1000 * step + rank)
    return dict(obs=rng.normal(size=(BATCH, 4)).astype(np.float32),
                next_obs=rng.normal(size=(BATCH, 4)).astype(np.float32), action=rng.integers(0, 3, BATCH), reward=rng.normal(size=BATCH).astype(np.float32),
                done=rng.random(BATCH) < 0.2)


def main(out_dir: str) -> None:
    torch.set_num_threads(1)
    with DDPContext():
        rank, world = get_rank(), get_world_size()
        torch.manual_seed(rank)  # different initial weights per rank: the broadcast must fix them
        policy = DQNPolicy(make_cfg(True))
        if rank == 0:
            torch.save(policy._model.state_dict(), os.path.join(out_dir, 'init.pt'))
        for step in range(STEPS):
            policy.learn_mode.forward(batch(step, rank))
        torch.save(policy._model.state_dict(), os.path.join(out_dir, f'rank{rank}.pt'))
        print(f'rank {rank}/{world} done', flush=True)


if __name__ == '__main__':
    main(sys.argv[1])
