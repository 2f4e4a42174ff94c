"""`default_config()` of the configurable classes (policies, envs, env managers, buffers)."""
import copy

from easydict import EasyDict


def merged_class_config(cls: type) -> EasyDict:
    """The `config` dicts of `cls` and its bases merged, a subclass adding or overriding keys
    (or removing one it does not read, `not_read()`), as plain values: the type markers of
    ding/config/schema.py are left out. `cfg_type` names the class (`<Class>Dict`).
    Used as `default_config = classmethod(merged_class_config)`."""
    from ding.config.schema import class_tree, plain
    cfg = EasyDict(copy.deepcopy(plain(class_tree(cls))))
    cfg.cfg_type = cls.__name__ + 'Dict'
    return cfg
