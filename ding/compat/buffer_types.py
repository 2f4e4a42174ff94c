"""Buffer type names of DI-engine configs that mean one of ours: `naive` (DI-engine's serial FIFO
replay buffer) and `episode` (its buffer of whole episodes, which HER samples; our DequeBuffer
stores each pushed episode as one item) are a DequeBuffer."""
from ding.data.buffer.deque_buffer import DequeBuffer
from ding.utils.registry import BUFFER_REGISTRY

BUFFER_REGISTRY.register('naive', DequeBuffer)
BUFFER_REGISTRY.register('episode', DequeBuffer)
