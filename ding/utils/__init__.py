"""Utilities with no dependency on the rest of ding."""
from ding.utils.lazy import lazy_exports

_EXPORTS = {
    'Registry': 'registry',
    'POLICY_REGISTRY': 'registry',
    'MODEL_REGISTRY': 'registry',
    'ENV_REGISTRY': 'registry',
    'ENV_MANAGER_REGISTRY': 'registry',
    'BUFFER_REGISTRY': 'registry',
    'REWARD_MODEL_REGISTRY': 'registry',
    'deep_merge': 'dicts',
    'set_pkg_seed': 'seeding',
    'atomic_write_bytes': 'fileio',
    'atomic_write_json': 'fileio',
    'atomic_torch_save': 'fileio',
    'get_writer': 'writer',
    'init_writer': 'writer',
    'RunWriter': 'writer',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
