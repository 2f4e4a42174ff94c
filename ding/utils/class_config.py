"""`default_config()` of the configurable classes (policies, envs, env managers, buffers)."""
from easydict import EasyDict

from ding.utils.dicts import deep_merge


def merged_class_config(cls: type) -> EasyDict:
    """The `config` dicts of `cls` and its bases merged, a subclass adding or overriding keys;
    `cfg_type` names the class, as DI-engine's configs do. Used as
    `default_config = classmethod(merged_class_config)`."""
    cfg = EasyDict()
    for klass in reversed(cls.__mro__):
        if 'config' in vars(klass):
            cfg = deep_merge(cfg, klass.config)
    cfg.cfg_type = cls.__name__ + 'Dict'
    return cfg
