"""`ding check-env MODULE:FACTORY`: a good env passes with its step cost; each broken env is
reported in exactly one problem line naming what is wrong, and exits 1."""
import os
import re

import pytest

from ding.entry.cli import main
from ding.entry.env_checks import check_env

FIXTURES = 'tests.entry.check_env_fixtures'
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_a_good_env_passes_and_reports_its_step_cost(capsys):
    assert main(['check-env', f'{FIXTURES}:make_good', '--steps', '200']) == 0
    (line, ) = capsys.readouterr().out.splitlines()
    assert line.startswith(f'{FIXTURES}:make_good: ok; ') and line.endswith(' steps/s over 200 steps')


def test_cartpole_passes_by_its_gymnasium_id(capsys):
    assert main(['check-env', 'CartPole-v1', '--steps', '100']) == 0
    assert 'CartPole-v1: ok; ' in capsys.readouterr().out


@pytest.mark.parametrize('factory, kind, detail', [
    ('WrongShape', 'obs shape', 'reset: obs has shape (3,), observation_space has (2,)'),
    ('WrongDtype', 'obs dtype', 'reset: obs has dtype float64, observation_space has float32'),
    ('OldStepApi', 'signature', 'step() returned a 4-tuple; gymnasium 1.x step returns (obs, reward, terminated, '
     'truncated, info)'),
    ('IgnoresSeed', 'determinism', 'differ at the first obs'),
    ('NanAfterStep', 'non-finite', 'step 2: obs holds nan'),
])
def test_each_broken_env_is_one_problem_line(capsys, factory, kind, detail):
    assert main(['check-env', f'{FIXTURES}:{factory}', '--steps', '50']) == 1
    lines = capsys.readouterr().out.splitlines()
    problems = [line for line in lines if line.startswith('problem: ')]
    assert len(problems) == 1, lines
    assert problems[0].startswith(f'problem: {kind}: ') and detail in problems[0]
    assert lines[-1].startswith(f'{FIXTURES}:{factory}: 1 problem(s); ')


def test_a_factory_that_raises_is_one_line(capsys):
    def broken():
        raise RuntimeError('no such map')
    report = check_env(broken)
    assert [str(p) for p in report.problems] == ['exception: RuntimeError raised while building the env: no such map']


@pytest.mark.parametrize('target, message', [
    ('no_such_module_xyz:make', "cannot import 'no_such_module_xyz'"),
    (f'{FIXTURES}:missing', f"{FIXTURES} has no callable 'missing'"),
    ('NotAnEnv-v0', "'NotAnEnv-v0' is neither MODULE:FACTORY nor a registered gymnasium id"),
])
def test_a_bad_target_is_a_usage_error(capsys, target, message):
    assert main(['check-env', target]) == 2
    err = capsys.readouterr().err
    assert err.startswith('ding: error: ') and message in err


def test_the_custom_env_guide_command_prints_what_the_page_shows(capsys):
    # docs/custom_env.md shows `ding check-env <target>` and its output line; the steps/s figure varies
    page = open(os.path.join(ROOT, 'docs', 'custom_env.md')).read()
    target = re.search(r'^\$ ding check-env (\S+)$', page, re.M).group(1)
    shown = re.search(rf'^{re.escape(target)}: ok; [\d,]+ steps/s over 1000 steps$', page, re.M)
    assert shown is not None
    assert main(['check-env', target]) == 0
    assert re.fullmatch(rf'{re.escape(target)}: ok; [\d,]+ steps/s over 1000 steps\n', capsys.readouterr().out)


def test_a_ding_env_is_pointed_at_the_gymnasium_env_it_wraps():
    import gymnasium as gym
    from ding.envs import DingEnvWrapper
    report = check_env(lambda: DingEnvWrapper(gym.make('CartPole-v1')))
    assert [str(p) for p in report.problems] == [
        'signature: the factory returned a ding DingEnvWrapper; return the gymnasium env it wraps '
        '(DingEnvWrapper(env) is what a pipeline builds from it)']
