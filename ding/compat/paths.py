"""DI-engine's import paths that differ from ours, in one table.

User code written for DI-engine imports e.g. `ding.model.template.qac` or
`ding.framework.middleware.functional.evaluator`, and DI-engine configs name modules such as
`ding.data.buffer.deque_buffer_wrapper` in `import_names`. Each such path is served here, so the
real code keeps one home:
- `SAME_MODULE`: the DI-engine path is another name for one of our modules (the same module
  object, so its registrations run and every name in it is there);
- `NAMES`: the DI-engine path is a module whose names come from several of ours (resolved on
  first use); it is a package when other table entries sit below it.
A finder appended to `sys.meta_path` (last, so real modules always win) builds these modules on
import. Paths that exist as real modules in ding (ding.torch_utils, ding.framework.task, ...) are
not listed.
"""
import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from typing import Dict, Optional, Sequence

_MW = 'ding.framework.middleware'

SAME_MODULE: Dict[str, str] = {
    'ding.model.template.qac': 'ding.model.qac',
    'ding.model.template.vac': 'ding.model.vac',
    'ding.model.template.pg': 'ding.model.pg',
    'ding.model.template.qac_dist': 'ding.model.qac_dist',
    'ding.model.template.ppg': 'ding.model.ppg',
    'ding.model.template.edac': 'ding.model.qac_ensemble',
    'ding.model.template.decision_transformer': 'ding.model.decision_transformer',
    'ding.model.template.pdqn': 'ding.model.pdqn',
    'ding.envs.env.base_env': 'ding.envs.base_env',
    'ding.envs.env.ding_env_wrapper': 'ding.envs.ding_env_wrapper',
    'ding.data.buffer.deque_buffer_wrapper': 'ding.data.buffer.deque_buffer',
    'ding.torch_utils.network.nn_module': 'ding.torch_utils.nn_module',
    'ding.framework.middleware.functional.evaluator': f'{_MW}.evaluator',
    'ding.framework.middleware.functional.enhancer': f'{_MW}.enhancer',
    'ding.framework.middleware.functional.logger': f'{_MW}.logger',
    'ding.framework.middleware.functional.ctx_helper': f'{_MW}.ctx_helper',
    'ding.framework.middleware.functional.termination_checker': f'{_MW}.termination',
    'ding.framework.middleware.functional.explorer': f'{_MW}.exploration',
    'ding.framework.middleware.functional.advantage_estimator': f'{_MW}.advantage',
    'ding.framework.middleware.functional.collector': f'{_MW}.functional_collect',
    'ding.framework.middleware.functional.trainer': f'{_MW}.learner',
    'ding.framework.middleware.collector': f'{_MW}.step_collector',
    'ding.framework.middleware.ckpt_handler': f'{_MW}.ckpt_handler',
    'ding.framework.middleware.functional.data_processor': f'{_MW}.data_processor',
    # DI-engine's own runtime pieces, which only its programs use: their code lives in ding/compat/
    'ding.policy.base_policy': 'ding.compat.policy',
    'ding.framework.event_loop': 'ding.compat.event_loop',
    'ding.framework.parallel': 'ding.compat.parallel',
    'ding.framework.supervisor': 'ding.compat.supervisor',
    'ding.envs.env_manager.env_supervisor': 'ding.compat.env_supervisor',
}

_Q_MODELS = ('DQN', 'C51DQN', 'QRDQN', 'IQN', 'FQF', 'RainbowDQN', 'DRQN')
_FUNCTIONAL = (
    'trainer', 'multistep_trainer', 'offpolicy_data_fetcher', 'data_pusher', 'offline_data_fetcher',
    'offline_data_saver', 'sqil_data_pusher', 'buffer_saver', 'inferencer', 'rolloutor', 'TransitionList',
    'interaction_evaluator', 'interaction_evaluator_ttorch', 'termination_checker', 'online_logger',
    'offline_logger', 'wandb_online_logger', 'wandb_offline_logger', 'final_ctx_saver', 'eps_greedy_handler',
    'eps_greedy_masker',
    'gae_estimator', 'montecarlo_return_estimator', 'reward_estimator', 'her_data_enhancer',
    'nstep_reward_enhancer', 'priority_calculator', 'epoch_timer'
)
_DATASETS = ('create_dataset', 'NaiveRLDataset', 'HDF5Dataset', 'D4RLDataset', 'DatasetStatistics',
             'offline_data_save_type')
_UTILS_REGISTRIES = (
    'registries', 'POLICY_REGISTRY', 'MODEL_REGISTRY', 'ENV_REGISTRY', 'ENV_MANAGER_REGISTRY', 'BUFFER_REGISTRY',
    'REWARD_MODEL_REGISTRY', 'ENV_WRAPPER_REGISTRY', 'DATASET_REGISTRY', 'LEARNER_REGISTRY',
    'SERIAL_COLLECTOR_REGISTRY', 'SERIAL_EVALUATOR_REGISTRY', 'WORLD_MODEL_REGISTRY'
)

NAMES: Dict[str, Dict[str, Sequence[str]]] = {  # DI-engine module -> {our module: names it provides}
    'ding.model.template': {'ding.model': _Q_MODELS + ('VAC', 'PG', 'ContinuousQAC', 'DiscreteQAC')},
    'ding.model.template.q_learning': {'ding.model': _Q_MODELS},
    'ding.envs.env': {'ding.envs': ('BaseEnv', 'BaseEnvTimestep', 'DingEnvWrapper', 'get_vec_env_setting')},
    'ding.torch_utils.network': {
        'ding.torch_utils': ('MLP', 'fc_block', 'build_normalization', 'build_activation')
    },
    'ding.framework.middleware.functional': {_MW: _FUNCTIONAL},
    'ding.framework.middleware.functional.priority': {_MW: ('priority_calculator', )},
    'ding.framework.middleware.functional.timer': {_MW: ('epoch_timer', )},
    'ding.utils.default_helper': {'ding.utils': ('deep_merge_dicts', 'set_pkg_seed')},
    'ding.utils.time_helper': {'ding.utils': ('EasyTimer', )},
    'ding.utils.log_helper': {'ding.utils': ('build_logger', )},
    'ding.utils.log_writer_helper': {'ding.utils': ('DistributedWriter', )},
    'ding.utils.registry_factory': {'ding.utils': _UTILS_REGISTRIES},
    'ding.utils.data': {'ding.data': _DATASETS, 'ding.data.treetensor_collate': ('ttorch_collate', )},
    'ding.utils.data.dataset': {'ding.data': _DATASETS},
}


def _is_package(name: str) -> bool:
    prefix = name + '.'
    return any(other.startswith(prefix) for other in (*SAME_MODULE, *NAMES))


def _names_module(name: str) -> types.ModuleType:
    """A module whose names resolve, on first use, from the modules of ours that hold them."""
    module = types.ModuleType(name, f"DI-engine's {name}, served by ding (ding/compat/paths.py).")
    source = {n: ours for ours, names in NAMES.get(name, {}).items() for n in names}
    module.__all__ = sorted(source)

    def __getattr__(attr: str):
        if attr not in source:
            raise AttributeError(f'module {name!r} has no attribute {attr!r}: ding provides {module.__all__} '
                                 f'under this DI-engine path')
        value = getattr(importlib.import_module(source[attr]), attr)
        setattr(module, attr, value)
        return value

    module.__getattr__ = __getattr__
    module.__dir__ = lambda: sorted(set(vars(module)) | set(source))
    return module


class _Loader(importlib.abc.Loader):

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Optional[types.ModuleType]:
        if spec.name in SAME_MODULE:
            return importlib.import_module(SAME_MODULE[spec.name])
        return _names_module(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        pass  # everything happened in create_module (a package gets its empty __path__ from the spec)


class _Finder(importlib.abc.MetaPathFinder):

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        if fullname in SAME_MODULE or fullname in NAMES:
            return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=_is_package(fullname))
        if _is_package(fullname):  # e.g. 'ding.model.template' parents without a NAMES entry of their own
            return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)
        return None


def install() -> None:
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())


def all_paths() -> Sequence[str]:
    return sorted({*SAME_MODULE, *NAMES})
