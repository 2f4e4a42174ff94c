"""What exists only so that programs written for DI-engine run unchanged.

The core (every other package of `ding`) imports nothing from here; `tests/foundation/
test_import_graph.py` holds that. The public DI-engine names that need a shim (for example
`ding.policy.PPOPolicy`, which DI-engine builds as MAPPO under `multi_agent=True`) are exported
from their usual packages and defined here.
"""


def install() -> None:
    """Run by `import ding`: DI-engine's module paths (paths.py), the adapters through which our
    middleware takes a DI-engine-style policy mode or env manager, and the filter that accepts the
    keys of DI-engine's configs that ding ignores (ding/utils/protocol_adapters.py)."""
    from ding.compat.paths import install as install_paths
    from ding.utils.protocol_adapters import install as install_adapters
    install_paths()
    install_adapters(policy=_adapt_policy_mode, env=_adapt_env_manager, config_keys=_accept_config_keys)


def _adapt_policy_mode(mode):  # imported on first use: `import ding` stays light
    from ding.compat.duck_typed_mode import as_batched_policy
    return as_batched_policy(mode)


def _adapt_env_manager(env):
    from ding.compat.env_manager_adapter import as_batched_env
    return as_batched_env(env)


def _accept_config_keys(problems, policy_type):
    from ding.compat.config_keys import split_accepted
    return split_accepted(problems, policy_type)
