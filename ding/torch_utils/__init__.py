"""Torch helpers (`ding.torch_utils`): moving nested data between numpy,
torch and devices, small network blocks, and optimizers with gradient clipping."""
from ding.utils.lazy import lazy_exports

_EXPORTS = {
    'to_device': 'data_helper',
    'to_tensor': 'data_helper',
    'to_ndarray': 'data_helper',
    'to_list': 'data_helper',
    'to_dtype': 'data_helper',
    'to_item': 'data_helper',
    'tensor_to_list': 'data_helper',
    'fc_block': 'nn_module',
    'MLP': 'nn_module',
    'build_normalization': 'nn_module',
    'build_activation': 'nn_module',
    'Adam': 'optimizer_helper',
    'RMSprop': 'optimizer_helper',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
