"""Every policy we ship can be trained from the CLI: each `policy.type` that `ding.policy` declares
in POLICY_REGISTRY has at least one tuned pair in `ding list` (issue 39, item 3).

The registry is the authoritative list: it is what a config's `policy.type` can name, so a
policy missing from it cannot be built by any entry."""
import pytest

import ding.policy  # noqa: F401  (declares the policy types)
from ding.entry.catalog import tuned_configs
from ding.utils.registry import POLICY_REGISTRY


def shipped_policy_types():
    """The types `ding.policy` declares or its modules register (not what a test registers); a few
    are DI-engine's switching classes (ding/compat/policy_switches.py)."""
    ours = ('ding.policy.', 'ding.compat.')
    declared = {name for name, module in POLICY_REGISTRY.lazy.items() if module.startswith(ours)}
    registered = {name for name, cls in POLICY_REGISTRY.items() if getattr(cls, '__module__', '').startswith(ours)}
    return sorted(declared | registered)


def paired_algos():
    return {t.algo for t in tuned_configs()}


def test_the_registry_lists_the_policies_we_ship():
    shipped = shipped_policy_types()
    assert {'dqn', 'ppo', 'sac', 'r2d2', 'impala', 'pdqn', 'iql', 'cql', 'mappo', 'sqil', 'sqil_sac'} <= set(shipped)


@pytest.mark.parametrize('policy_type', shipped_policy_types())
def test_every_shipped_policy_has_a_tuned_pair(policy_type):
    assert policy_type in paired_algos(), f'policy {policy_type!r} has no tuned pair in ding/config/tuned (`ding list`)'


def test_every_pair_names_a_shipped_policy():
    unknown = sorted(paired_algos() - set(shipped_policy_types()))
    assert not unknown, f'tuned pairs of algorithms no policy registers: {unknown}'


@pytest.mark.parametrize('tuned', tuned_configs(), ids=lambda t: f'{t.algo}-{t.env}')
def test_every_pair_compiles_to_its_algo_env_and_stop_value(tuned):
    """`ding train` stops at the env's stop value: it must be the listed threshold, on the listed env,
    with the listed algorithm's policy (DI-engine's `multi_agent=True` makes type 'ppo' MAPPO)."""
    from ding.config import compile_config
    main, create = tuned.load()
    cfg = compile_config(main, create_cfg=create, auto=True, seed=0, save_cfg=False)

    def built(policy_type):  # the class a policy config of this type builds (a variant for some configs)
        cls = POLICY_REGISTRY.lookup(policy_type)
        return cls.variant_for(cfg.policy) if hasattr(cls, 'variant_for') else cls

    assert (built(cfg.policy.type), cfg.env.env_id) == (built(tuned.algo), tuned.env)
    assert cfg.env.stop_value == tuned.threshold
