"""`ding tune`'s search space: the YAML form, its checks (each error names the key), the
per-algorithm defaults, and sampling into nested config overrides."""
import pytest

from ding.entry.catalog import find_tuned, read_tuned
from ding.entry.tune_space import DEFAULT_SPACES, SearchSpaceError, check_paths, default_space, parse_space, \
    sample, to_overrides

TUNED_WITH_SPACE = """# DQN with a space
algo: dqn
env: CartPole-v1
threshold: 475
budget_env_steps: 1000
base_config: dizoo.classic_control.cartpole.config.cartpole_dqn_v1_config
overrides: {policy: {learn: {batch_size: 32}}}
search_space:
  policy.learn.learning_rate: {type: float, low: 1.0e-4, high: 3.0e-3, log: true}
  policy.nstep: {type: int, low: 1, high: 5}
  policy.learn.batch_size: {type: categorical, choices: [32, 64]}
"""


def test_read_tuned_accepts_a_search_space_and_still_refuses_unknown_keys(tmp_path):
    path = tmp_path / 'dqn.yaml'
    path.write_text(TUNED_WITH_SPACE)
    tuned = read_tuned(str(path))
    assert tuned.search_space['policy.nstep'] == {'type': 'int', 'low': 1, 'high': 5}
    assert tuned.overrides == {'policy': {'learn': {'batch_size': 32}}}
    path.write_text(TUNED_WITH_SPACE + 'searchspace: {}\n')
    with pytest.raises(ValueError, match=r"unknown keys \['searchspace'\]"):
        read_tuned(str(path))


def test_shipped_tuned_configs_have_no_space_and_read_as_before():
    assert find_tuned('dqn', 'CartPole-v1').search_space is None


def test_parse_fills_defaults_and_keeps_types(tmp_path):
    (tmp_path / 'dqn.yaml').write_text(TUNED_WITH_SPACE)
    space = parse_space(read_tuned(str(tmp_path / 'dqn.yaml')).search_space)
    assert space['policy.learn.learning_rate'] == {'type': 'float', 'low': 1e-4, 'high': 3e-3, 'log': True,
                                                   'step': None}
    assert space['policy.nstep'] == {'type': 'int', 'low': 1, 'high': 5, 'log': False, 'step': None}
    assert space['policy.learn.batch_size'] == {'type': 'categorical', 'choices': [32, 64]}


@pytest.mark.parametrize('entry, message', [
    ({'policy.lr': {'type': 'uniform', 'low': 0, 'high': 1}}, "policy.lr: needs `type:` one of"),
    ({'policy.lr': {'type': 'float', 'low': 1, 'high': 1}}, 'policy.lr: needs low < high'),
    ({'policy.lr': {'type': 'float', 'low': 0, 'high': 1, 'log': True}}, 'policy.lr: log: true needs low > 0'),
    ({'policy.lr': {'type': 'float', 'low': 'a', 'high': 1}}, 'policy.lr: `low` must be a number'),
    ({'policy.n': {'type': 'int', 'low': 1.5, 'high': 3}}, 'policy.n: `low` must be an integer'),
    ({'policy.n': {'type': 'int', 'low': 1, 'high': 3, 'choices': [1]}}, r"policy.n: unknown fields \['choices'\]"),
    ({'policy.bs': {'type': 'categorical', 'choices': []}}, 'policy.bs: categorical needs a non-empty list'),
    ({'policy.lr': {'type': 'float', 'low': 1e-4, 'high': 1, 'log': True, 'step': 0.1}},
     'policy.lr: `step` and `log: true` cannot be combined'),
    ({'policy..lr': {'type': 'float', 'low': 0, 'high': 1}}, 'policy..lr: the key must be a dotted config path'),
    ({}, 'must be a non-empty mapping'),
])
def test_bad_entries_name_their_key(entry, message):
    with pytest.raises(SearchSpaceError, match=message):
        parse_space(entry)


def test_paths_must_name_config_keys_with_a_suggestion():
    config = {'policy': {'learn': {'learning_rate': 1e-3, 'batch_size': 64}, 'nstep': 1}}
    check_paths({'policy.learn.learning_rate': {}, 'policy.nstep': {}}, config)
    with pytest.raises(SearchSpaceError, match=r"policy.learn.learning_rte: no such config key "
                                               r"\(did you mean 'policy.learn.learning_rate'\?\)"):
        check_paths({'policy.learn.learning_rte': {}}, config)
    with pytest.raises(SearchSpaceError, match='policy.nstep.x: no such config key'):
        check_paths({'policy.nstep.x': {}}, config)


@pytest.mark.parametrize('algo', sorted(DEFAULT_SPACES))
def test_default_spaces_are_valid_and_name_real_config_keys(algo):
    from ding.entry.tune import resolve_space
    env = {'dqn': 'CartPole-v1', 'ppo': 'CartPole-v1', 'sac': 'Pendulum-v1'}[algo]
    space = resolve_space(find_tuned(algo, env))  # parse_space + check_paths against the policy defaults
    assert 'policy.learn.batch_size' in space


def test_an_algo_without_a_default_space_says_how_to_give_one():
    with pytest.raises(SearchSpaceError, match="no default search space for 'pg'.*add `search_space:`"):
        default_space('pg')


def test_sample_draws_within_bounds_and_nests_into_overrides():
    optuna = pytest.importorskip('optuna')
    space = parse_space({'policy.learn.learning_rate': {'type': 'float', 'low': 1e-4, 'high': 1e-2, 'log': True},
                         'policy.nstep': {'type': 'int', 'low': 1, 'high': 5},
                         'policy.learn.batch_size': {'type': 'categorical', 'choices': [32, 64]}})
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    for _ in range(20):
        params = sample(study.ask(), space)
        assert 1e-4 <= params['policy.learn.learning_rate'] <= 1e-2
        assert params['policy.nstep'] in range(1, 6) and params['policy.learn.batch_size'] in (32, 64)
    base = {'policy': {'learn': {'batch_size': 16, 'update_per_collect': 4}}}
    merged = to_overrides({'policy.learn.batch_size': 64, 'policy.nstep': 3}, base)
    assert merged == {'policy': {'learn': {'batch_size': 64, 'update_per_collect': 4}, 'nstep': 3}}
    assert base['policy']['learn']['batch_size'] == 16  # the base is not changed


def test_a_range_reaching_outside_the_keys_declared_range_is_refused():
    from ding.config.schema import declared
    from ding.entry.tune_space import check_space_values
    from ding.policy.dqn import DQNPolicy
    decl = {'policy': declared(DQNPolicy)}
    ok = parse_space({'policy.discount_factor': {'type': 'categorical', 'choices': [0.97, 0.99]},
                      'policy.learn.batch_size': {'type': 'int', 'low': 16, 'high': 256}})
    check_space_values(ok, decl)
    with pytest.raises(SearchSpaceError, match=r'search_space: policy.discount_factor: policy.discount_factor must be '
                                               r'a number in \[0, 1\], got 1.5'):
        check_space_values(parse_space({'policy.discount_factor': {'type': 'float', 'low': 0.9, 'high': 1.5}}), decl)
    with pytest.raises(SearchSpaceError, match='policy.learn.batch_size must be a positive int, got 0'):
        check_space_values(parse_space({'policy.learn.batch_size': {'type': 'categorical', 'choices': [0, 64]}}), decl)
