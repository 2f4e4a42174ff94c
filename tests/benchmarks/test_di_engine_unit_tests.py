"""benchmarks/di_engine/di_engine_unit_tests.py: DI-engine 0.5.3's own middleware and env-manager unit tests
(from its wheel) run against this package, every selected one passing; and the runner's pieces:
the exclusion table of docs/migrating.md, the rewriting of the copied tests."""
import pathlib

import pytest

from benchmarks.di_engine import di_engine_unit_tests as runner


def test_the_exclusion_table_names_tests_with_a_reason_each():
    excluded = runner.exclusions()
    assert excluded, "docs/migrating.md lists no excluded DI-engine test"
    for test_id, reason in excluded.items():
        assert test_id.startswith(('ding/framework/', 'ding/envs/env_manager/', 'ding/data/buffer/')), test_id
        assert test_id.split('::')[0].endswith('.py'), test_id
        assert len(reason.split()) >= 4, f'{test_id}: a reason says why, got {reason!r}'


def test_an_exclusion_table_is_read_up_to_the_next_section(tmp_path):
    doc = tmp_path / 'migrating.md'
    doc.write_text(f"# x\n\n{runner.EXCLUSION_HEADING}\n\n| test | reason |\n|---|---|\n"
                   "| `ding/a/tests/test_a.py::test_one` | checks a private field |\n\n## Next\n\n"
                   "| `ding/b/tests/test_b.py` | not this one |\n")
    assert runner.exclusions(doc) == {'ding/a/tests/test_a.py::test_one': 'checks a private field'}
    doc.write_text('# no such section\n')
    with pytest.raises(SystemExit, match='no "' + runner.EXCLUSION_HEADING):
        runner.exclusions(doc)


def test_copied_tests_import_the_copies_and_gymnasium_and_our_modules(tmp_path):
    source = ('import gym\nfrom gym.spaces import Box\nfrom ding.framework.middleware.tests import MockEnv\n'
              'from ..base_env_manager import EnvState\nfrom .mock_for_test import CONFIG\n')
    runner._write(tmp_path, 'ding/envs/env_manager/tests/test_x.py', source)
    text = (tmp_path / runner.COPY_PACKAGE / 'envs/env_manager/tests/test_x.py').read_text()
    assert text.splitlines() == [
        'import gymnasium as gym', 'from gymnasium.spaces import Box',
        f'from {runner.COPY_PACKAGE}.framework.middleware.tests import MockEnv',
        'from ding.envs.env_manager.base_env_manager import EnvState', 'from .mock_for_test import CONFIG'
    ]
    for package in ('', 'envs', 'envs/env_manager', 'envs/env_manager/tests'):
        assert (tmp_path / runner.COPY_PACKAGE / package / '__init__.py').is_file()
    assert runner.to_copied_id('ding/envs/x.py::t') == f'{runner.COPY_PACKAGE}/envs/x.py::t'


def test_excluded_tests_are_deselected_by_exact_id_not_by_prefix(tmp_path):
    import subprocess
    import sys
    (tmp_path / 'conftest.py').write_text(runner.SEEDING_CONFTEST)
    (tmp_path / 'excluded_tests.txt').write_text('test_x.py::test_priority\ntest_x.py::test_param\n')
    (tmp_path / 'test_x.py').write_text('import pytest\n\ndef test_priority():\n    assert False\n\n'
                                        'def test_priority_from_collector():\n    pass\n\n'
                                        '@pytest.mark.parametrize("n", [1, 2])\ndef test_param(n):\n    assert False\n')
    proc = subprocess.run([sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--rootdir', str(tmp_path),
                           'test_x.py'], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout
    assert '1 passed, 3 deselected' in proc.stdout, proc.stdout


@pytest.mark.slow
def test_every_selected_di_engine_unit_test_of_the_wheel_passes():
    # skipped by tests/di_engine_wheel.py, with pip's reason, only when the wheel cannot be downloaded
    summary = runner.run(timeout=300)
    assert summary['failed'] == 0 and summary['errors'] == 0, '\n'.join(summary['failures'])
    # DI-engine 0.5.3's wheel: 33 selected middleware and env-manager tests besides the excluded ones
    assert summary['passed'] >= 33 and summary['excluded'] >= 1, summary
    assert pathlib.Path(runner.MIGRATING).is_file()
