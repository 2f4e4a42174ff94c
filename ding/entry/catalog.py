"""The tuned configs in `ding/config/tuned/*.yaml` (package data, so an installed wheel has
them): which (algorithm, env) pairs `ding train` and the agents know, the threshold each
reaches and the env-step budget it needs.

A tuned file names a dizoo config module (`base_config`, holding `main_config` and
`create_config`) and the `overrides` applied on top; `-f FILE.py` may instead give a
python config file (`main_config`, `create_config`) directly.

An offline pair (`ding train ... --dataset PATH`) has `budget_train_iter` (updates) in place of
`budget_env_steps`, and a `dataset` recipe: the tuned file of the expert run, and the
`ding collect` episodes and eps that make the dataset it reaches its threshold on.

An imitation pair (SQIL: `ding train ... --dataset DEMOS`) is online, with an env-step budget,
and has a `demonstrations` recipe of the same form: the expert demonstrations it learns from.
"""
import copy
import difflib
import importlib
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from easydict import EasyDict

from ding.utils.dicts import deep_merge

CONFIG_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'config', 'tuned')
_REQUIRED = ('algo', 'env', 'threshold', 'base_config')
_BUDGETS = ('budget_env_steps', 'budget_train_iter')  # exactly one: online env steps, or offline updates
_OPTIONAL = ('overrides', 'search_space', 'dataset', 'demonstrations')
_DATASET_KEYS = ('expert', 'episodes', 'eps')


class ChoiceError(ValueError):
    """A name that is not one of the valid choices; the message lists them."""


def choice_error(kind: str, given: str, valid: List[str]) -> ChoiceError:
    near = difflib.get_close_matches(given, valid, n=1)
    hint = f' (did you mean {near[0]!r}?)' if near else ''
    return ChoiceError(f'unknown {kind} {given!r}{hint}; valid choices: {", ".join(sorted(valid))}')


@dataclass
class TunedConfig:
    algo: str
    env: str
    threshold: float
    budget_env_steps: int
    base_config: str
    overrides: Dict[str, Any] = field(default_factory=dict)
    path: Optional[str] = None
    note: str = ''
    search_space: Optional[Dict[str, Any]] = None  # `ding tune`'s (ding/entry/tune_space.py); None: the algo's default
    budget_train_iter: Optional[int] = None  # offline pairs: updates (budget_env_steps is then 0)
    dataset: Optional[Dict[str, Any]] = None  # offline pairs: {expert: TUNED.yaml, episodes: N, eps: E}
    demonstrations: Optional[Dict[str, Any]] = None  # imitation pairs (online): the same recipe, for the demos

    @property
    def offline(self) -> bool:
        return self.budget_train_iter is not None

    def load(self) -> Tuple[EasyDict, EasyDict]:
        """(main_config, create_config): the base module's pair with the overrides applied."""
        module = importlib.import_module(self.base_config)
        main = deep_merge(copy.deepcopy(module.main_config), self.overrides or {})
        return EasyDict(main), EasyDict(copy.deepcopy(module.create_config))


def read_tuned(path: str) -> TunedConfig:
    from ding.config.io import load_yaml_mapping
    with open(path) as f:
        text = f.read()
    data = load_yaml_mapping(path)
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise ValueError(f'{path}: a tuned config needs the keys {list(_REQUIRED)}; missing {missing}')
    unknown = sorted(set(data) - set(_REQUIRED) - set(_BUDGETS) - set(_OPTIONAL))
    if unknown:
        raise ValueError(f'{path}: unknown keys {unknown}; valid: {list(_REQUIRED) + list(_BUDGETS) + list(_OPTIONAL)}')
    budgets = [k for k in _BUDGETS if k in data]
    if len(budgets) != 1:
        raise ValueError(f'{path}: a tuned config needs exactly one of {list(_BUDGETS)} (env steps online, updates '
                         f'offline); has {budgets}')
    offline = budgets[0] == 'budget_train_iter'
    dataset = data.get('dataset')
    if offline != (dataset is not None):
        raise ValueError(f'{path}: an offline pair (budget_train_iter) needs a `dataset` recipe, and only it has one')
    demonstrations = data.get('demonstrations')
    if offline and demonstrations is not None:
        raise ValueError(f'{path}: `demonstrations` is for online imitation pairs (budget_env_steps); an offline '
                         f'pair learns from its `dataset`')
    for key, recipe in (('dataset', dataset), ('demonstrations', demonstrations)):
        if recipe is not None and sorted(recipe) != sorted(_DATASET_KEYS):
            raise ValueError(f'{path}: {key} needs exactly the keys {list(_DATASET_KEYS)}; has {sorted(recipe)}')
    _check_algo(path, str(data['algo']).lower())
    note = text.splitlines()[0].lstrip('# ').strip() if text.startswith('#') else ''
    return TunedConfig(str(data['algo']).lower(), str(data['env']), float(data['threshold']),
                       0 if offline else int(data['budget_env_steps']), str(data['base_config']),
                       data.get('overrides') or {}, os.path.abspath(path), note, data.get('search_space'),
                       int(data['budget_train_iter']) if offline else None, dataset, demonstrations)


def _check_algo(path: str, algo: str) -> None:
    """`algo` names the run (its directory, `ding list`, `find_tuned`): it must be an algorithm
    we ship, a policy type (importing ding.policy declares them all without loading torch)."""
    import ding.policy  # noqa: F401  (declares the policy types)
    from ding.utils.registry import POLICY_REGISTRY
    known = sorted(set(POLICY_REGISTRY) | set(POLICY_REGISTRY.lazy))
    if algo not in known:
        raise ChoiceError(f'{path}: algo: {choice_error("algorithm", algo, known)}')


def tuned_configs(config_dir: str = CONFIG_DIR) -> List[TunedConfig]:
    if not os.path.isdir(config_dir):
        raise FileNotFoundError(f'no tuned configs directory at {config_dir}')
    names = sorted(n for n in os.listdir(config_dir) if n.endswith(('.yaml', '.yml')))
    return [read_tuned(os.path.join(config_dir, n)) for n in names]


def algorithms() -> List[str]:
    return sorted({t.algo for t in tuned_configs()})


def envs() -> List[str]:
    return sorted({t.env for t in tuned_configs()})


def find_tuned(algo: str, env: str, offline: Optional[bool] = None) -> TunedConfig:
    """The tuned config of (algo, env) (only online or offline pairs when `offline` says which);
    unknown names raise ChoiceError listing the valid ones."""
    table = [t for t in tuned_configs() if offline is None or t.offline == offline]
    algo = algo.lower()
    if algo not in {t.algo for t in table}:
        raise choice_error('algorithm', algo, sorted({t.algo for t in table}))
    for_algo = [t for t in table if t.algo == algo]
    for t in for_algo:
        if t.env.lower() == env.lower():
            return t
    raise choice_error(f'env for {algo}', env, [t.env for t in for_algo])
