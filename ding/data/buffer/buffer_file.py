"""Saving a buffer to one file and loading it back, middleware state included.

The file is a pickle of `{'buffer': buffer.state_dict(), 'middleware': [(class name,
state), ...]}` for each middleware that has `state_dict` (e.g. PER's priorities), written
atomically (`ding.utils.fileio`), so a crash mid-save keeps the previous file whole.
Loading checks that the buffer has the same size and the same stateful middleware, in the
same order, and says which differ.
"""
import pickle
from typing import Any

from ding.utils.fileio import atomic_write_bytes


def save_buffer(buffer: Any, path: str) -> None:
    with buffer.lock:
        state = {
            'buffer': buffer.state_dict(),
            'middleware': [(type(m).__name__, m.state_dict()) for m in buffer.middleware if hasattr(m, 'state_dict')],
        }
        data = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    atomic_write_bytes(path, data)


def load_buffer(buffer: Any, path: str) -> None:
    with open(path, 'rb') as f:
        state = pickle.load(f)
    if state['buffer']['size'] != buffer.size:
        raise ValueError(f'{path} holds a buffer of size {state["buffer"]["size"]}; this one has size {buffer.size}')
    stateful = [m for m in buffer.middleware if hasattr(m, 'load_state_dict')]
    saved = [name for name, _ in state['middleware']]
    have = [type(m).__name__ for m in stateful]
    if saved != have:
        raise ValueError(f'{path} was saved with middleware {saved}; this buffer uses {have}')
    with buffer.lock:
        buffer.load_state_dict(state['buffer'])
        for m, (_, mw_state) in zip(stateful, state['middleware']):
            m.load_state_dict(mw_state)
