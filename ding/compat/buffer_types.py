"""Buffer type names of DI-engine configs that mean one of ours: `naive` (DI-engine's serial FIFO
replay buffer) and `episode` (its
buffer of whole episodes, which our DequeBuffer stores as one item each) are a DequeBuffer."""
from ding.data.buffer.deque_buffer import DequeBuffer
from ding.utils.registry import BUFFER_REGISTRY

BUFFER_REGISTRY.register('naive', DequeBuffer)
# DI-engine's episode buffer: each pushed item is one whole episode (HER samples episodes)
BUFFER_REGISTRY.register('episode', DequeBuffer)
