"""Build env managers and env settings from a config, as the serial entries do.

    env_fn, collector_cfgs, evaluator_cfgs = get_vec_env_setting(cfg.env)
    collector_env = create_env_manager(cfg.env.manager, [partial(env_fn, c) for c in collector_cfgs])
"""
from typing import Any, Callable, List, Mapping, Sequence, Tuple

from ding.utils.registry import ENV_MANAGER_REGISTRY, ENV_REGISTRY


def get_env_manager_cls(cfg: Mapping) -> type:
    """The manager class named by `cfg.type` (e.g. 'base', 'base_v2', 'subprocess')."""
    return ENV_MANAGER_REGISTRY.lookup(cfg['type'])


def create_env_manager(manager_cfg: Mapping, env_fn: Sequence[Callable[[], Any]]) -> Any:
    return get_env_manager_cls(manager_cfg)(env_fn, manager_cfg)


def get_vec_env_setting(cfg: Mapping, collect: bool = True, eval_: bool = True) -> Tuple[type, List, List]:
    """(env class from `cfg.type`, one cfg per collector env, one per evaluator env).
    Modules in `cfg.import_names` are imported first so their envs are registered."""
    import importlib
    for name in cfg.get('import_names', ()) or ():
        importlib.import_module(name)
    env_cls = ENV_REGISTRY.lookup(cfg['type'])
    collector_cfgs = env_cls.create_collector_env_cfg(cfg) if collect else []
    evaluator_cfgs = env_cls.create_evaluator_env_cfg(cfg) if eval_ else []
    return env_cls, collector_cfgs, evaluator_cfgs
