"""Where a policy mode, env manager or config written to another protocol meets ours.

Collectors and evaluators call `batched_policy(mode)` and `batched_env(manager)` once, when they
are built. Our own modes (they have `forward_batch`) and managers (they have `step_batch`) pass
through unchanged, which is the fast path. Any other object goes to the adapter installed for its
kind: `import ding` installs those of ding/compat/__init__.py, which wrap a mode acting on
`{env_id: obs}` dicts or a manager stepping `{env_id: action}`. With none installed, such an
object is a TypeError that names what is missing.

The config check hands its unknown keys to `refused_keys`: the installed filter lets through the
known keys that ding ignores (ding/compat/config_keys.py, one warning each); with none, every
unknown key is refused.
"""
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from ding.utils.duck_typing import has_attr

_ADAPTERS: Dict[str, Optional[Callable]] = {'policy': None, 'env': None, 'config_keys': None}


def install(policy: Callable[[Any], Any], env: Callable[[Any], Any],
            config_keys: Callable[[Iterable[Tuple[str, str]], Optional[str]], List[str]]) -> None:
    """Set the adapters that `batched_policy` and `batched_env` hand foreign objects to, and the
    filter of unknown config keys."""
    _ADAPTERS.update(policy=policy, env=env, config_keys=config_keys)


def refused_keys(problems: Iterable[Tuple[str, str]], policy_type: Optional[str] = None) -> List[str]:
    """The messages of the unknown keys ((dotted path, message) pairs) that are errors."""
    accept = _ADAPTERS['config_keys']
    return accept(problems, policy_type) if accept is not None else [message for _, message in problems]


def batched_policy(policy: Any) -> Any:
    """`policy` when it has `forward_batch(obs)`; otherwise what the installed adapter makes of it."""
    return _ours_or_adapted(policy, 'forward_batch', 'policy', 'policy mode',
                            'pass policy.collect_mode or policy.eval_mode')


def batched_env(env: Any) -> Any:
    """`env` when it has `step_batch(actions)`; otherwise what the installed adapter makes of it."""
    return _ours_or_adapted(env, 'step_batch', 'env', 'env manager',
                            'wrap single envs in BaseEnvManagerV2(env_fn=[...], cfg=cfg.env.manager)')


def _ours_or_adapted(obj: Any, method: str, kind: str, what: str, hint: str) -> Any:
    if has_attr(obj, method):
        return obj
    adapt = _ADAPTERS[kind]
    if adapt is None:
        raise TypeError(f'{type(obj).__name__} is no {what}: it has no {method}; {hint}')
    return adapt(obj)
