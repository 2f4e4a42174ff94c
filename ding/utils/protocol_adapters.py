"""Where a policy mode or env manager written to another protocol meets our middleware.

Collectors and evaluators call `batched_policy(mode)` and `batched_env(manager)` once, when they
are built. Our own modes (they have `forward_batch`) and managers (they have `step_batch`) pass
through unchanged, which is the fast path. Any other object goes to the adapter installed for its
kind: `import ding` installs DI-engine's (ding/compat/__init__.py), which wrap a mode acting on
`{env_id: obs}` dicts or a manager stepping `{env_id: action}`. With none installed, such an
object is a TypeError that names what is missing.
"""
from typing import Any, Callable, Dict, Optional

from ding.utils.duck_typing import has_attr

_ADAPTERS: Dict[str, Optional[Callable[[Any], Any]]] = {'policy': None, 'env': None}


def install(policy: Callable[[Any], Any], env: Callable[[Any], Any]) -> None:
    """Set the adapters that `batched_policy` and `batched_env` hand foreign objects to."""
    _ADAPTERS.update(policy=policy, env=env)


def batched_policy(policy: Any) -> Any:
    """`policy` when it has `forward_batch(obs)`; otherwise what the installed adapter makes of it."""
    if has_attr(policy, 'forward_batch'):
        return policy
    adapt = _ADAPTERS['policy']
    if adapt is None:
        raise TypeError(f'{type(policy).__name__} is no policy mode: it has no forward_batch; '
                        f'pass policy.collect_mode or policy.eval_mode')
    return adapt(policy)


def batched_env(env: Any) -> Any:
    """`env` when it has `step_batch(actions)`; otherwise what the installed adapter makes of it."""
    if has_attr(env, 'step_batch'):
        return env
    adapt = _ADAPTERS['env']
    if adapt is None:
        raise TypeError(f'{type(env).__name__} is no env manager: it has no step_batch; wrap single envs '
                        f'in BaseEnvManagerV2(env_fn=[...], cfg=cfg.env.manager)')
    return adapt(env)
