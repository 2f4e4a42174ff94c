"""Configs: `compile_config` resolves a user's main/create config pair against class defaults."""
from ding.utils.lazy import lazy_exports

_EXPORTS = {
    'compile_config': 'compile',
    'read_config': 'io',
    'save_config_yaml': 'io',
    'save_config_py': 'io',
    'ConfigKeyError': 'validate',
    'ConfigValueError': 'schema',  # a value of the wrong type or out of range (a ValueError)
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
