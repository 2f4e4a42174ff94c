"""Expert demonstrations read from a dataset file (`ding collect`'s hdf5 or pickle, D4RL's
layout, a Minari directory): SQIL's expert buffer, each transition relabelled with reward 1.

SQIL (Reddy et al. 2019) learns from a fixed set of demonstrations and the agent's own
transitions; the env's reward is never read. The buffer holds the columns a collected transition
has (`done` is termination, `truncated` a time limit), so that a learner batch can be half agent
rows and half expert rows.
"""
from typing import Any

import numpy as np

from ding.data.batch import Batch
from ding.data.buffer.deque_buffer import DequeBuffer
from ding.data.offline_dataset import dataset_from_path


def demonstration_buffer(path: str, reward: float = 1.0) -> DequeBuffer:
    """A buffer holding every transition of the dataset at `path`, with `reward` in place of its own."""
    data = dataset_from_path(path).batch
    n = len(data)
    if n == 0:
        raise ValueError(f'demonstrations {path}: the dataset holds no transitions')
    columns = {key: np.asarray(data[key]) for key in ('obs', 'action', 'next_obs')}
    columns['done'] = np.asarray(data['done']).astype(bool).reshape(n)
    # a dataset without the column ends episodes only by termination (D4RL's `timeouts` are read into it)
    columns['truncated'] = (np.asarray(data['truncated']).astype(bool).reshape(n) if 'truncated' in data
                            else np.zeros(n, dtype=bool))
    columns['reward'] = np.full(n, reward, dtype=np.float32)
    buffer_ = DequeBuffer(size=n)
    buffer_.push(Batch(columns))
    return buffer_


class SamplerState:
    """A buffer's sampling RNG as run-state (`RunStateSaver`'s `extra`): the demonstrations are
    read again from their file on resume, and the draws must go on where they stopped."""

    def __init__(self, buffer_: Any) -> None:
        self._buffer = buffer_

    def state_dict(self) -> dict:
        return {'rng': self._buffer.rng.bit_generator.state}

    def load_state_dict(self, state: dict) -> None:
        self._buffer.rng.bit_generator.state = state['rng']
