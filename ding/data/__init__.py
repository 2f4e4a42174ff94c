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
    'padding': 'buffer.middleware',
    'sample_range_view': 'buffer.middleware',
    'staleness_check': 'buffer.middleware',
    'BatchDataset': 'dataset',
    'collate_batch': 'dataset',
    'FileModelLoader': 'model_loader',
    'FileStorageLoader': 'storage_loader',
    'FileStorage': 'storage_loader',
    'offline_data_save_type': 'offline_save',
    'save_offline_data': 'offline_save',
    'create_dataset': 'offline_dataset',
    'OfflineRLDataset': 'offline_dataset',
    'NaiveRLDataset': 'offline_dataset',
    'HDF5Dataset': 'offline_dataset',
    'D4RLDataset': 'offline_dataset',
    'SequenceDataset': 'sequence_dataset',
    'MinariRLDataset': 'minari_dataset',
    'save_minari': 'minari_dataset',
    'DatasetStatistics': 'offline_dataset',
}
_lazy_getattr, _lazy_dir = lazy_exports(__name__, _EXPORTS)
_TORCH_DATA = ('Dataset', 'DataLoader')  # torch's, for programs that import them from ding.data


def __getattr__(name: str):  # noqa: F811
    if name in _TORCH_DATA:
        import torch.utils.data
        return getattr(torch.utils.data, name)
    return _lazy_getattr(name)


def __dir__():
    return sorted(set(_lazy_dir()) | set(_TORCH_DATA))

# config `replay_buffer.type` -> the module that registers it
from ding.utils.registry import BUFFER_REGISTRY, DATASET_REGISTRY  # noqa: E402

BUFFER_REGISTRY.declare(__name__, {'deque': 'buffer.deque_buffer', 'naive': 'ding.compat.buffer_types',
                                  'episode': 'ding.compat.buffer_types', 'frame': 'buffer.frame_buffer'})
# config `policy.collect.data_type` -> the module that registers the dataset
DATASET_REGISTRY.declare(__name__, {'naive': 'offline_dataset', 'hdf5': 'offline_dataset', 'd4rl': 'offline_dataset'})
DATASET_REGISTRY.declare(__name__, {'sequence': 'sequence_dataset', 'd4rl_trajectory': 'sequence_dataset'})
DATASET_REGISTRY.declare(__name__, {'minari': 'minari_dataset'})
