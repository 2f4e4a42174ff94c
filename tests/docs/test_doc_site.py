"""The generated pages of the documentation site (docs/gen/) say what the code and the results
say. `make docs` (CI) builds the whole site with warnings as errors; these check the content."""
import argparse
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'docs', 'gen'))

import cli_reference  # noqa: E402
import config_reference  # noqa: E402
import middleware_reference  # noqa: E402
import performance_tables  # noqa: E402
import quickstart  # noqa: E402


def test_quickstart_has_the_readme_commands():
    page = quickstart.render()
    assert 'make run' in page and 'make test' in page
    assert quickstart.readme_commands() in page.replace('```bash\n', '', 1)


def test_cli_reference_lists_every_command_and_option():
    from ding.entry.cli import SUBCOMMANDS, build_parser
    page = cli_reference.render()
    (sub, ) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for name, command in sub.choices.items():
        assert f'## ding {name}' in page
        for action in command._actions:
            for flag in action.option_strings:
                if flag not in ('-h', '--help'):
                    assert f'`{flag}`' in page, f'ding {name} {flag} missing'
    assert list(sub.choices) == list(SUBCOMMANDS)
    assert '| `--checkpoint-freq` | `10000` |' in page  # the default, read from the parser


def test_config_reference_has_each_policy_with_its_defaults():
    from ding.policy import DQNPolicy, PPOPolicy
    page = config_reference.render()
    for name, cls in config_reference.policy_classes():
        assert f'## {name}\n' in page
    dqn = page[page.index('## dqn\n'):page.index('## c51\n')]
    target_update_freq = DQNPolicy.default_config()['learn']['target_update_freq']
    assert f'| `policy.learn.target_update_freq` | **`{target_update_freq}`** | an int >= 0 |' in dqn
    assert '| `policy.discount_factor` | **`0.97`** | a number in [0, 1] |' in dqn  # the declared range
    assert '| `policy.learn.double_dqn` | **`True`** | true or false |' in dqn  # the type of the default
    ppo = page[page.index('## ppo\n'):]
    assert f"`policy.learn.clip_ratio` | **`{PPOPolicy.default_config()['learn']['clip_ratio']!r}`**" in ppo


def test_performance_tables_have_every_result_file(tmp_path, monkeypatch):
    page = performance_tables.render()
    for path in performance_tables.result_files():
        assert f'## {os.path.splitext(os.path.basename(path))[0]}\n' in page
    assert '| DQN CartPole-v1 | 475 |' in page  # compare.json through the comparison's own table code
    # a new result file shows up with its fields and its rows, without touching the generator
    (tmp_path / 'new_bench.json').write_text(json.dumps({'env': 'X', 'speed': {'sync': 1234.5}, 'runs': [
        {'seed': 0, 'wall_s': 1.5}, {'seed': 1, 'wall_s': 2.5}]}))
    monkeypatch.setattr(performance_tables, 'RESULTS', str(tmp_path))
    page = performance_tables.render()
    assert '## new_bench' in page and '| `speed.sync` | 1,234 |' in page
    assert '| seed | wall_s |' in page and '| 1 | 2.5 |' in page


@pytest.mark.slow
def test_middleware_reference_reads_the_contracts(monkeypatch):
    rows = middleware_reference.contract_rows()
    names = {row['name'] for row in rows}
    assert set(middleware_reference.exported_middleware()) - set(middleware_reference.OPTIONAL) <= names
    by_name = {(row['name'], row['variant']): row for row in rows}
    assert by_name[('data_pusher', '')]['writes'] == ('trajectories', 'episodes')
    assert by_name[('gae_estimator', 'writes train_data')]['fresh_weights']
    assert by_name[('gae_estimator', 'with a buffer_')]['writes'] == ('trajectories', )
    assert '| `termination_checker` | `termination` | `env_step`, `train_iter` | - |' in middleware_reference.render()
    # a middleware exported without a recipe fails the build instead of leaving the table behind
    from ding.framework.middleware import _EXPORTS
    monkeypatch.setitem(_EXPORTS, 'brand_new_middleware', 'logger')
    with pytest.raises(RuntimeError, match='brand_new_middleware'):
        middleware_reference.contract_rows()
