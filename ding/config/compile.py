"""`compile_config`: the one resolved config of a run.

Sources, later wins: each class's `default_config()` < `create_config` (types, import_names,
manager options) < the user's `main_config`. Classes come from the arguments, or with
`auto=True` from the registries by the `type` names in `create_config`:

    env            ENV_REGISTRY          create_config.env.type          -> cfg.env
    env manager    ENV_MANAGER_REGISTRY  create_config.env_manager.type  -> cfg.env.manager ('base')
    policy         POLICY_REGISTRY       create_config.policy.type       -> cfg.policy
    replay buffer  BUFFER_REGISTRY       create_config.replay_buffer.type-> cfg.policy.other.replay_buffer ('deque')
    reward model   REWARD_MODEL_REGISTRY create_config.reward_model.type -> cfg.reward_model

A user key that no default declares is an error naming its dotted path and the closest valid
key (see `ding.config.validate`). A section whose class declares no defaults accepts any keys.
"""
import copy
import datetime
import importlib
import os
from typing import Any, Mapping, Optional, Tuple

from easydict import EasyDict

from ding.config import schema
from ding.config.common_keys import ENV_OFFLINE, ENV_REPLAY, OFF_POLICY_COMMON, POLICY_COMMON, REPLAY_BUFFER_COMMON
from ding.config.io import save_config_py, save_config_yaml
from ding.config.validate import check_keys
from ding.utils.dicts import deep_merge
from ding.utils.registry import (BUFFER_REGISTRY, ENV_MANAGER_REGISTRY, ENV_REGISTRY, POLICY_REGISTRY,
                                 REWARD_MODEL_REGISTRY, Registry)

# Keys every env config may carry, whatever the env class declares (read by the middleware).
ENV_COMMON = dict(
    type=None,
    import_names=[],
    collector_env_num=schema.positive_int(1),
    evaluator_env_num=schema.positive_int(1),
    n_evaluator_episode=schema.positive_int(1),
    stop_value=schema.key(float('inf'), 'real'),
    manager=dict(),
)
# Top-level keys besides env and policy; empty mappings accept any keys.
TOP_LEVEL = dict(exp_name='default_experiment', seed=0, reward_model=dict(), world_model=dict(), wandb_logger=dict())


def import_create_names(create_cfg: Mapping) -> None:
    """Import every module listed in `create_cfg.<section>.import_names` (they register types)."""
    for key, section in create_cfg.items():
        if isinstance(section, Mapping):
            for name in section.get('import_names', None) or ():
                try:
                    importlib.import_module(name)
                except ImportError as err:  # a misspelt module, or a package it needs is missing: one line
                    raise schema.ConfigValueError(f'create_config.{key}.import_names: cannot import {name!r} '
                                                  f'({err})') from err


def resolve_class(registry: Registry, section: Optional[Mapping], default_type: Optional[str] = None) -> Any:
    """The class a create_config section names (a lookup error names the known types). With no
    name, the `default_type` class if it is available, else None."""
    name = (section or {}).get('type')
    if name:
        return registry.lookup(name)
    if default_type is None:
        return None
    try:
        return registry.lookup(default_type)
    except (KeyError, ModuleNotFoundError):
        return None


def build_defaults(create_cfg: Mapping, classes: Mapping[str, Any]) -> Tuple[dict, set]:
    """(merged declarations of env, policy and the optional sections, open section paths): a
    tree of defaults whose leaves may carry types and ranges (`ding.config.schema`)."""
    open_paths = set()
    merge = schema.merge

    def section(cls: Any, common: Mapping, create_section: Optional[Mapping], path: str) -> dict:
        declared = schema.declared(cls)
        if declared is None:
            open_paths.add(path)
        return merge(merge(common, declared or {}), create_section or {})

    env = section(classes['env'], merge(ENV_COMMON, ENV_REPLAY), create_cfg.get('env'), 'env')
    env['manager'] = section(classes['env_manager'], env['manager'], create_cfg.get('env_manager'), 'env.manager')
    # load_path and the learner hooks, which every policy takes (common_keys.py)
    policy = section(classes['policy'], POLICY_COMMON if classes['policy'] is not None else {},
                     create_cfg.get('policy'), 'policy')
    if 'data_type' in (policy.get('collect') or {}):  # an offline policy: its dataset may normalise observations
        env = merge(ENV_OFFLINE, env)

    buffer_declared = schema.declared(classes['buffer'])
    policy_buffer = policy.get('other', {}).get('replay_buffer')
    if buffer_declared is not None or policy_buffer is not None:
        replay = merge(merge(merge(REPLAY_BUFFER_COMMON, buffer_declared or {}), policy_buffer or {}),
                       create_cfg.get('replay_buffer') or {})
        policy['other'] = merge(policy.get('other', {}), {'replay_buffer': replay})
        policy = merge(OFF_POLICY_COMMON, policy)  # the keys of off-policy policies (common_keys.py)
    for name, where in (('learner', 'learn'), ('collector', 'collect'), ('evaluator', 'eval')):
        declared = schema.declared(classes[name])
        if declared is not None:  # legacy serial-pipeline components, kept under the policy
            mode = policy.get(where, {})
            policy[where] = merge(mode, {name: merge(declared, mode.get(name, {}))})

    defaults = dict(env=env, policy=policy)
    for name in ('reward_model', 'world_model'):
        if classes[name] is not None:
            defaults[name] = section(classes[name], {}, create_cfg.get(name), name)
    return defaults, open_paths


def run_dir(exp_name: str, renew_dir: bool) -> str:
    """`exp_name`, or with `renew_dir` and an existing directory, a new `exp_name_<time>[_k]`."""
    if not (renew_dir and os.path.exists(exp_name)):
        return exp_name
    base = exp_name.rstrip('/') + datetime.datetime.now().strftime('_%y%m%d_%H%M%S')
    name, k = base, 0
    while os.path.exists(name):
        k += 1
        name = f'{base}_{k}'
    return name


def manager_section(user: Mapping, create_cfg: Mapping) -> Optional[Mapping]:
    """The create_config's env_manager section, with the type the user's `env.manager.type` names
    when there is one: the pipeline builds that manager, so its keys are the ones to check."""
    user_type = ((user.get('env') or {}).get('manager') or {}).get('type')
    section = create_cfg.get('env_manager')
    return section if not user_type else dict(section or {}, type=user_type)


def compile_config(cfg: Mapping, env_manager: Any = None, policy: Any = None, learner: Any = None,
                   collector: Any = None, evaluator: Any = None, buffer: Any = None, env: Any = None,
                   reward_model: Any = None, world_model: Any = None, seed: int = 0, auto: bool = False,
                   create_cfg: Optional[Mapping] = None, save_cfg: bool = True, save_path: str = 'total_config.py',
                   renew_dir: bool = True) -> EasyDict:
    """Resolve `cfg` (the user's main_config) against the class defaults; see the module doc.

    Sets `cfg.seed = seed` and `cfg.exp_name` (default 'default_experiment'). With `save_cfg`
    writes `<exp_name>/config.yaml` and `<exp_name>/<save_path>` (a python main/create config
    pair); with `renew_dir` an existing run directory is not reused: exp_name gets a time suffix.
    """
    user = EasyDict(copy.deepcopy(dict(cfg)))
    create_cfg = EasyDict(copy.deepcopy(dict(create_cfg or {})))
    if auto:
        if not create_cfg:
            raise ValueError('compile_config(auto=True) needs create_cfg (the create_config naming the types)')
        import_create_names(create_cfg)
        env = env or resolve_class(ENV_REGISTRY, create_cfg.get('env'))
        env_manager = env_manager or resolve_class(ENV_MANAGER_REGISTRY, manager_section(user, create_cfg), 'base')
        policy = policy or resolve_class(POLICY_REGISTRY, create_cfg.get('policy'))
        buffer = buffer or resolve_class(BUFFER_REGISTRY, create_cfg.get('replay_buffer'), 'deque')
        reward_model = reward_model or resolve_class(REWARD_MODEL_REGISTRY, create_cfg.get('reward_model'))
    if policy is not None and hasattr(policy, 'variant_for'):  # e.g. PPOPolicy with multi_agent=True is MAPPO
        policy = policy.variant_for(user.get('policy') or {})
    classes = dict(env=env, env_manager=env_manager, policy=policy, buffer=buffer, learner=learner,
                   collector=collector, evaluator=evaluator, reward_model=reward_model, world_model=world_model)
    declared, open_paths = build_defaults(create_cfg if auto else {}, classes)
    declared = schema.merge(TOP_LEVEL, declared)
    defaults = EasyDict(copy.deepcopy(schema.plain(declared)))
    check_keys(user, defaults, open_paths)
    schema.raise_for_values(user, declared, open_paths)

    out = deep_merge(defaults, user)
    if 'unroll_len' in out.get('policy', {}):  # IMPALA's rule: the trajectory length sets collect's
        out.policy.collect.unroll_len = out.policy.unroll_len
    out.seed = seed
    out.exp_name = user.get('exp_name') or TOP_LEVEL['exp_name']
    if save_cfg:
        out.exp_name = run_dir(out.exp_name, renew_dir)
        os.makedirs(out.exp_name, exist_ok=True)
        save_config_yaml(out, os.path.join(out.exp_name, 'config.yaml'))
        if save_path and save_path.endswith('.py'):
            save_config_py(out, create_cfg, os.path.join(out.exp_name, save_path))
    return out
