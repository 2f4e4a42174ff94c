"""`ding tune`'s search space: which config paths to sample and how.

A tuned YAML may carry its own under `search_space:`; otherwise the algorithm's default below
is used. Each entry names a dotted config path and a distribution:

    policy.learn.learning_rate: {type: float, low: 1.0e-4, high: 3.0e-3, log: true}
    policy.nstep: {type: int, low: 1, high: 10}
    policy.learn.batch_size: {type: categorical, choices: [32, 64, 128]}

Everything here is plain data and checks; optuna is only touched through the `trial` passed
to `sample` (so parsing a space needs no optuna).
"""
from typing import Any, Dict, Mapping, Optional

from ding.entry.arguments import UsageError

DEFAULT_SPACES: Dict[str, Dict[str, Dict[str, Any]]] = {
    'dqn': {
        'policy.learn.learning_rate': {'type': 'float', 'low': 1e-4, 'high': 3e-3, 'log': True},
        'policy.learn.batch_size': {'type': 'categorical', 'choices': [32, 64, 128]},
        'policy.discount_factor': {'type': 'categorical', 'choices': [0.97, 0.99, 0.995]},
        'policy.learn.target_update_freq': {'type': 'int', 'low': 25, 'high': 400, 'log': True},
        'policy.nstep': {'type': 'int', 'low': 1, 'high': 10},
    },
    'ppo': {
        'policy.learn.learning_rate': {'type': 'float', 'low': 1e-4, 'high': 3e-3, 'log': True},
        'policy.learn.batch_size': {'type': 'categorical', 'choices': [64, 128, 256]},
        'policy.learn.clip_ratio': {'type': 'float', 'low': 0.1, 'high': 0.3},
        'policy.learn.entropy_weight': {'type': 'float', 'low': 1e-4, 'high': 0.05, 'log': True},
        'policy.learn.epoch_per_collect': {'type': 'int', 'low': 3, 'high': 10},
        'policy.collect.discount_factor': {'type': 'categorical', 'choices': [0.97, 0.98, 0.99, 0.995]},
        'policy.collect.gae_lambda': {'type': 'float', 'low': 0.8, 'high': 0.98},
    },
    'sac': {
        'policy.learn.learning_rate_q': {'type': 'float', 'low': 1e-4, 'high': 3e-3, 'log': True},
        'policy.learn.learning_rate_policy': {'type': 'float', 'low': 1e-4, 'high': 3e-3, 'log': True},
        'policy.learn.batch_size': {'type': 'categorical', 'choices': [64, 128, 256]},
        'policy.learn.discount_factor': {'type': 'categorical', 'choices': [0.97, 0.98, 0.99]},
        'policy.learn.target_theta': {'type': 'float', 'low': 0.002, 'high': 0.02, 'log': True},
    },
}
_KEYS = {'float': {'low', 'high', 'log', 'step'}, 'int': {'low', 'high', 'log', 'step'}, 'categorical': {'choices'}}


class SearchSpaceError(UsageError):
    """A bad search-space entry; the message names its key."""


def default_space(algo: str) -> Dict[str, Dict[str, Any]]:
    if algo not in DEFAULT_SPACES:
        raise SearchSpaceError(f'no default search space for {algo!r} (defaults exist for '
                               f'{", ".join(sorted(DEFAULT_SPACES))}); add `search_space:` to its tuned YAML')
    return {k: dict(v) for k, v in DEFAULT_SPACES[algo].items()}


def parse_space(space: Any, where: str = 'search_space') -> Dict[str, Dict[str, Any]]:
    """Check every entry; returns the space with `log`/`step` filled in. Errors name the key."""
    if not isinstance(space, Mapping) or not space:
        raise SearchSpaceError(f'{where} must be a non-empty mapping of config path -> distribution')
    return {str(path): _check_entry(f'{where}: {path}', path, spec) for path, spec in space.items()}


def _check_entry(name: str, path: Any, spec: Any) -> Dict[str, Any]:
    if not isinstance(path, str) or not all(path.split('.')):
        raise SearchSpaceError(f'{name}: the key must be a dotted config path such as policy.learn.learning_rate')
    if not isinstance(spec, Mapping) or spec.get('type') not in _KEYS:
        raise SearchSpaceError(f'{name}: needs `type:` one of {sorted(_KEYS)}, got {spec!r}')
    kind = spec['type']
    unknown = sorted(set(spec) - _KEYS[kind] - {'type'})
    if unknown:
        raise SearchSpaceError(f'{name}: unknown fields {unknown} for type {kind}; valid: {sorted(_KEYS[kind])}')
    if kind == 'categorical':
        choices = spec.get('choices')
        if not isinstance(choices, list) or not choices:
            raise SearchSpaceError(f'{name}: categorical needs a non-empty list `choices:`')
        return {'type': kind, 'choices': list(choices)}
    number = float if kind == 'float' else int
    low, high = spec.get('low'), spec.get('high')
    for field_name, value in (('low', low), ('high', high)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (number is int and value != int(value)):
            raise SearchSpaceError(f'{name}: `{field_name}` must be a{"n integer" if number is int else " number"}, '
                                   f'got {value!r}')
    if not low < high:
        raise SearchSpaceError(f'{name}: needs low < high, got low={low} high={high}')
    log, step = bool(spec.get('log', False)), spec.get('step')
    if log and low <= 0:
        raise SearchSpaceError(f'{name}: log: true needs low > 0, got {low}')
    if log and step is not None:
        raise SearchSpaceError(f'{name}: `step` and `log: true` cannot be combined (optuna refuses it)')
    return {'type': kind, 'low': number(low), 'high': number(high), 'log': log,
            'step': None if step is None else number(step)}


def check_paths(space: Mapping[str, Any], config: Mapping[str, Any]) -> None:
    """Every path must name a key of `config` (the base config merged over the policy's
    defaults): a misspelt path would otherwise sample a value nothing reads."""
    for path in space:
        node: Any = config
        for depth, part in enumerate(path.split('.')):
            if not isinstance(node, Mapping) or part not in node:
                import difflib
                near = difflib.get_close_matches(part, list(node) if isinstance(node, Mapping) else [], n=1)
                hint = f' (did you mean {".".join(path.split(".")[:depth] + [near[0]])!r}?)' if near else ''
                raise SearchSpaceError(f'search_space: {path}: no such config key{hint}')
            node = node[part]


def check_space_values(space: Mapping[str, Dict[str, Any]], declared: Mapping[str, Any]) -> None:
    """Every value a distribution can draw must be valid for its key's declared type and range
    (ding/config/schema.py): its low and high, or each choice. Paths not declared are not checked."""
    from ding.config.schema import as_key, problem
    for path, spec in space.items():
        node: Any = declared
        for part in path.split('.'):
            node = node.get(part) if isinstance(node, Mapping) else None
        if node is None or isinstance(node, Mapping):
            continue
        ends = spec['choices'] if spec['type'] == 'categorical' else [spec['low'], spec['high']]
        if spec['type'] == 'int':
            ends = [int(v) for v in ends]
        for value in ends:
            line = problem(path, value, as_key(node))
            if line:
                raise SearchSpaceError(f'search_space: {path}: {line}')


def sample(trial: Any, space: Mapping[str, Dict[str, Any]]) -> Dict[str, Any]:
    """{path: value} drawn from `trial` (an optuna Trial)."""
    params = {}
    for path, spec in space.items():
        if spec['type'] == 'categorical':
            params[path] = trial.suggest_categorical(path, spec['choices'])
        elif spec['type'] == 'float':
            params[path] = trial.suggest_float(path, spec['low'], spec['high'], log=spec['log'], step=spec['step'])
        else:
            params[path] = trial.suggest_int(path, spec['low'], spec['high'], log=spec['log'], step=spec['step'] or 1)
    return params


def to_overrides(params: Mapping[str, Any], base: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """{'a.b': 1} -> {'a': {'b': 1}}, merged into a copy of `base`."""
    import copy
    out = copy.deepcopy(base) if base else {}
    for path, value in params.items():
        node = out
        *parents, leaf = path.split('.')
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out
