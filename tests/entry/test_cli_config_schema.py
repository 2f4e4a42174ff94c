"""Issue 38's config cases through the real `ding` command: each ends in exactly one line
`ding: error: <key> <cause>` on stderr, exit status 2, no traceback and no run directory. Every
case fails while the config is checked, before an env or a model is built, so the test is fast."""
import json
import os

import pytest

from ding.entry.cli import main

DQN_V0 = ['train', '--algo', 'dqn', '--env', 'CartPole-v0']
SAC = ['train', '--algo', 'sac', '--env', 'Pendulum-v1']


def overrides(**sections):
    return ['--config', json.dumps(sections)]


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'broken.yaml').write_text('policy:\n  learn: {batch_size: 64\n')
    (tmp_path / 'empty.yaml').write_text('')
    # a tuned YAML of the user's: the shipped DQN one with a wrong-typed override
    (tmp_path / 'lr_fast.yaml').write_text(
        'algo: dqn\nenv: CartPole-v0\nthreshold: 195\nbudget_env_steps: 1000\n'
        'base_config: dizoo.classic_control.cartpole.config.cartpole_dqn_config\n'
        'overrides:\n  policy:\n    learn:\n      learning_rate: fast\n')
    (tmp_path / 'algo_dqnx.yaml').write_text(
        'algo: dqnx\nenv: CartPole-v0\nthreshold: 195\nbudget_env_steps: 1000\n'
        'base_config: dizoo.classic_control.cartpole.config.cartpole_dqn_config\n')
    # a DI-engine config file whose env module cannot be imported
    (tmp_path / 'bad_import.py').write_text(
        'import copy\n'
        'from dizoo.classic_control.cartpole.config import cartpole_dqn_config as base\n'
        'main_config = copy.deepcopy(base.main_config)  # the module is shared with every other test\n'
        "create_config = dict(env=dict(type='cartpole', import_names=['dizoo.classic_control.cartpole.envs.no_such_env'"
        "]), env_manager=dict(type='base'), policy=dict(type='dqn'))\n")
    return tmp_path


CASES = [
    ('learning_rate "fast" in a YAML file', ['train', '-f', 'lr_fast.yaml'],
     "policy.learn.learning_rate must be a number > 0, got 'fast'"),
    ('learning_rate "fast" in --config', DQN_V0 + overrides(policy={'learn': {'learning_rate': 'fast'}}),
     "policy.learn.learning_rate must be a number > 0, got 'fast'"),
    ('collector_env_num "eight"', DQN_V0 + overrides(env={'collector_env_num': 'eight'}),
     "env.collector_env_num must be a positive int, got 'eight'"),
    ('encoder_hidden_size_list 128', DQN_V0 + overrides(policy={'model': {'encoder_hidden_size_list': 128}}),
     'policy.model.encoder_hidden_size_list must be a list, got 128'),
    ('a wrong type in --config', DQN_V0 + overrides(policy={'learn': {'batch_size': '64'}}),
     "policy.learn.batch_size must be a positive int, got '64'"),
    ('a wrong type in --config: a scalar for a section', DQN_V0 + overrides(policy={'learn': 5}),
     'policy.learn must be a mapping, got 5'),
    ('broken YAML', ['train', '-f', 'broken.yaml'], "broken.yaml: not valid YAML (line 3, column 1): expected ','"),
    ('an empty YAML file', ['train', '-f', 'empty.yaml'], 'empty.yaml: the file is empty'),
    ('batch_size -1', DQN_V0 + overrides(policy={'learn': {'batch_size': -1}}),
     'policy.learn.batch_size must be a positive int, got -1'),
    ('batch_size 64.5', DQN_V0 + overrides(policy={'learn': {'batch_size': 64.5}}),
     'policy.learn.batch_size must be a positive int, got 64.5'),
    ('discount_factor 1.5', DQN_V0 + overrides(policy={'discount_factor': 1.5}),
     'policy.discount_factor must be a number in [0, 1], got 1.5'),
    ('eps start 2', DQN_V0 + overrides(policy={'other': {'eps': {'start': 2}}}),
     'policy.other.eps.start must be a number in [0, 1], got 2'),
    ('update_per_collect 0', DQN_V0 + overrides(policy={'learn': {'update_per_collect': 0}}),
     'policy.learn.update_per_collect must be a positive int, got 0'),
    ('n_sample 0', DQN_V0 + overrides(policy={'collect': {'n_sample': 0}}),
     'policy.collect.n_sample must be a positive int or null, got 0'),
    ('replay_buffer_size 0', DQN_V0 + overrides(policy={'other': {'replay_buffer': {'replay_buffer_size': 0}}}),
     'policy.other.replay_buffer.replay_buffer_size must be a positive int, got 0'),
    ('a bool key given a string', DQN_V0 + overrides(policy={'learn': {'double_dqn': 'yes'}}),
     "policy.learn.double_dqn must be true or false, got 'yes'"),
    ('an env manager choice', DQN_V0 + overrides(env={'manager': {'nonfinite': 'ignore'}}),
     "env.manager.nonfinite must be one of 'raise', 'warn', got 'ignore'"),
    ('algo dqnx', ['train', '--algo', 'dqnx', '--env', 'CartPole-v0'],
     "unknown algorithm 'dqnx' (did you mean 'dqn'?)"),
    ('algo dqnx in a YAML file', ['train', '-f', 'algo_dqnx.yaml'],
     "algo_dqnx.yaml: algo: unknown algorithm 'dqnx' (did you mean 'dqn'?)"),
    ('an import_names module that does not import', ['train', '-f', 'bad_import.py'],
     "create_config.env.import_names: cannot import 'dizoo.classic_control.cartpole.envs.no_such_env' (No module"),
    # issue 36: keys SAC never reads are misspellings, with where the key SAC reads is
    ('SAC learn.learning_rate', SAC + overrides(policy={'learn': {'learning_rate': 1e-3}}),
     "unknown config key cfg.policy.learn.learning_rate (did you mean 'learning_rate_q'?)"),
    ('SAC discount_factor', SAC + overrides(policy={'discount_factor': 0.9}),
     "unknown config key cfg.policy.discount_factor (did you mean 'cfg.policy.learn.discount_factor'?)"),
    ('TD3 learn.learning_rate', ['train', '--algo', 'td3', '--env', 'Pendulum-v1']
     + overrides(policy={'learn': {'learning_rate': 1e-3}}), "cfg.policy.learn.learning_rate (did you mean"),
]


@pytest.mark.parametrize('argv, message', [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_config_mistake_is_one_error_line_and_exit_2(in_tmp, capsys, argv, message):
    before = set(os.listdir(in_tmp))
    assert main(argv + ['--max-env-step', '200', '--no-progress']) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith('ding: error: '), captured.err
    assert message in lines[0], lines[0]
    assert set(os.listdir(in_tmp)) == before  # no run directory left behind
