"""Data: the `Batch` structure, replay buffers and their middleware, datasets, and the file
loaders that move models and data between processes."""
from ding.utils.lazy import lazy_exports

_EXPORTS = {
    'Batch': 'batch',
    'Row': 'batch',
    'as_batch': 'batch',
    'Buffer': 'buffer',
    'BufferedData': 'buffer',
    'SampledBatch': 'buffer',
    'DequeBuffer': 'buffer',
    'PriorityExperienceReplay': 'buffer.middleware',
    'use_time_check': 'buffer.middleware',
    'clone_object': 'buffer.middleware',
    'group_sample': 'buffer.middleware',
    'BatchDataset': 'dataset',
    'collate_batch': 'dataset',
    'FileModelLoader': 'model_loader',
    'FileStorageLoader': 'storage_loader',
    'FileStorage': 'storage_loader',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

# config `replay_buffer.type` -> the module that registers it
from ding.utils.registry import BUFFER_REGISTRY  # noqa: E402

BUFFER_REGISTRY.declare(__name__, {'deque': 'buffer.deque_buffer'})
