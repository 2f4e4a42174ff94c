"""The typed config keys (ding/config/schema.py): declared in the classes' own `config` dicts,
checked by `compile_config` as a ValueError with one line, and no false positives on any config
we ship (the tuned YAMLs and every dizoo config of this repository)."""
import copy
import glob
import importlib
import logging
import os

import pytest
import yaml
from easydict import EasyDict

from ding.config import compile_config
from ding.config.compile import import_create_names
from ding.config.schema import (ConfigValueError, Key, check_values, class_tree, declared, not_read, plain, positive,
                                positive_int, prob)
from ding.entry.catalog import tuned_configs
from ding.policy.base_policy import Policy
from ding.utils.registry import ENV_MANAGER_REGISTRY, POLICY_REGISTRY

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class ParentPolicy(Policy):
    config = dict(type='schema_parent', discount_factor=prob(0.99), learn=dict(learning_rate=positive(1e-3),
                  n_things=3, ratio=0.5, flag=True, name='a', sizes=[1, 2], anything=None))


class ChildPolicy(ParentPolicy):
    # overrides a typed key with a plain value (the type stays) and drops one it does not read
    config = dict(type='schema_child', discount_factor=not_read(), learn=dict(learning_rate=3e-4, ratio=1))


def cartpole_dqn():
    from dizoo.classic_control.cartpole.config import cartpole_dqn_config as module
    return EasyDict(copy.deepcopy(module.main_config)), EasyDict(copy.deepcopy(module.create_config))


def test_default_config_is_plain_values_and_not_read_removes_the_inherited_key():
    cfg = ChildPolicy.default_config()
    assert cfg.learn.learning_rate == 3e-4 and cfg.learn.ratio == 1 and 'discount_factor' not in cfg
    assert ParentPolicy.default_config().discount_factor == 0.99
    tree = class_tree(ChildPolicy)
    assert isinstance(tree['learn']['learning_rate'], Key) and tree['learn']['learning_rate'].above == 0
    assert 'discount_factor' not in tree
    yaml.safe_dump(plain(tree))  # no marker objects left in what programs read


@pytest.mark.parametrize('registry', [POLICY_REGISTRY, ENV_MANAGER_REGISTRY])
def test_every_registered_default_config_holds_no_markers(registry):
    import ding.envs  # noqa: F401  (registers the managers)
    import ding.policy  # noqa: F401

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, f'{path}.{k}')
        else:
            assert not isinstance(node, Key), path

    checked = 0
    for name in sorted(set(registry) | set(registry.lazy)):
        try:
            cls = registry.lookup(name)
        except ModuleNotFoundError:  # an optional package (e.g. envpool) not installed here
            continue
        if callable(getattr(cls, 'default_config', None)):
            walk(dict(cls.default_config()), name)
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize('value, message', [
    (dict(learning_rate='fast'), "learn.learning_rate must be a number > 0, got 'fast'"),
    (dict(learning_rate=0), 'learn.learning_rate must be a number > 0, got 0'),
    (dict(n_things=2.5), 'learn.n_things must be an int, got 2.5'),  # inferred from the default 3
    (dict(n_things=True), 'learn.n_things must be an int, got True'),
    (dict(ratio='x'), "learn.ratio must be a number, got 'x'"),  # inferred from 0.5; ints accepted
    (dict(flag=1), 'learn.flag must be true or false, got 1'),
    (dict(name=3), 'learn.name must be a string, got 3'),
    (dict(sizes=128), 'learn.sizes must be a list, got 128'),
])
def test_inferred_and_declared_types_refuse_with_one_line(value, message):
    assert check_values({'learn': value}, declared(ChildPolicy)) == [message]


def test_inferred_types_accept_what_the_default_allows():
    ok = dict(learning_rate=1, n_things=1e6, ratio=2, flag=False, name='b', sizes=(3, ), anything=object())
    assert check_values({'learn': ok}, declared(ChildPolicy)) == []


def test_positive_int_may_be_optional():
    key = positive_int(None)
    assert key.optional and check_values({'n': None}, {'n': key}) == []
    assert check_values({'n': 0}, {'n': key}) == ['n must be a positive int or null, got 0']


def test_library_path_raises_a_value_error_with_the_same_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    main, create = cartpole_dqn()
    main.policy.learn.batch_size = -1
    with pytest.raises(ConfigValueError) as err:
        compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    assert isinstance(err.value, ValueError)
    from ding.config import ConfigValueError as exported
    assert exported is ConfigValueError
    assert str(err.value) == 'policy.learn.batch_size must be a positive int, got -1'
    assert os.listdir(tmp_path) == []


def test_sac_keys_it_does_not_read_are_refused_with_where_the_read_one_is():
    from dizoo.classic_control.pendulum.config import pendulum_sac_config as module
    main, create = EasyDict(copy.deepcopy(module.main_config)), EasyDict(copy.deepcopy(module.create_config))
    for override, hint in ((dict(learn=dict(learning_rate=1e-3)), "did you mean 'learning_rate_q'"),
                           (dict(discount_factor=0.9), "did you mean 'cfg.policy.learn.discount_factor'")):
        user = EasyDict(main, policy=dict(main.policy, **override))
        with pytest.raises(KeyError, match=hint):
            compile_config(user, create_cfg=create, auto=True, save_cfg=False)


@pytest.mark.parametrize('policy_type', ['sac', 'td3', 'ddpg', 'd4pg', 'discrete_sac', 'bcq', 'iql', 'cql', 'edac',
                                         'td3_bc', 'sqil_sac', 'masac'])
def test_policies_that_read_other_learning_rates_do_not_declare_learn_learning_rate(policy_type):
    import ding.policy  # noqa: F401
    cfg = POLICY_REGISTRY.lookup(policy_type).default_config()
    assert 'learning_rate' not in cfg.learn
    assert 'discount_factor' not in cfg and 'discount_factor' in cfg.learn


def test_the_policies_reading_the_top_level_discount_declare_it():
    import ding.policy  # noqa: F401
    for name in ('dqn', 'c51', 'qrdqn', 'iqn', 'fqf', 'rainbow', 'r2d2', 'sql', 'pdqn', 'discrete_cql'):
        assert 'discount_factor' in POLICY_REGISTRY.lookup(name).default_config(), name
    for name in ('qmix', 'vdn', 'ppo', 'a2c', 'pg', 'impala', 'sac', 'td3', 'ddpg', 'dt', 'bc'):
        assert 'discount_factor' not in POLICY_REGISTRY.lookup(name).default_config(), name


@pytest.mark.parametrize('tuned', tuned_configs(), ids=lambda t: os.path.basename(t.path))
def test_every_tuned_config_validates_clean(tuned, caplog):
    # The tuned file's own keys give no warning. Its base dizoo config may carry DI-engine keys that
    # ding does not use (one warning each, ding/compat/config_keys.py): those are the base's, checked with the
    # dizoo configs below.
    def warnings_of(main, create):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger='ding.config'):
            compile_config(main, create_cfg=create, auto=True, save_cfg=False)
        return {r.getMessage() for r in caplog.records}

    base = importlib.import_module(tuned.base_config)
    from_base = warnings_of(copy.deepcopy(base.main_config), copy.deepcopy(base.create_config))
    added = warnings_of(*tuned.load()) - from_base
    assert not added, sorted(added)


def dizoo_configs():
    paths = sorted(glob.glob(os.path.join(ROOT, 'dizoo', '**', 'config', '**', '*.py'), recursive=True))
    return [os.path.relpath(p, ROOT) for p in paths if not p.endswith('__init__.py')]


@pytest.mark.parametrize('path', dizoo_configs())
def test_every_dizoo_config_of_this_repository_validates_clean(path):
    module = importlib.import_module(path[:-3].replace(os.sep, '.'))
    main, create = getattr(module, 'main_config', None), getattr(module, 'create_config', None)
    if main is None or not create:
        pytest.skip('defines no main_config / create_config pair')
    try:
        import_create_names(create)
    except ModuleNotFoundError as err:
        pytest.skip(f'its env needs a package not installed here: {err}')
    compile_config(EasyDict(main), create_cfg=EasyDict(create), auto=True, save_cfg=False)


@pytest.mark.parametrize('registry', [POLICY_REGISTRY, ENV_MANAGER_REGISTRY])
def test_every_class_default_is_valid_for_its_own_declaration(registry):
    """A subclass's plain override of a typed key keeps the type: its default must still fit."""
    import ding.envs  # noqa: F401
    import ding.policy  # noqa: F401
    problems = []
    for name in sorted(set(registry) | set(registry.lazy)):
        try:
            cls = registry.lookup(name)
        except ModuleNotFoundError:
            continue
        decl = declared(cls)
        if decl is not None:
            problems += [f'{name}: {line}' for line in check_values(plain(decl), decl)]
    assert problems == []
