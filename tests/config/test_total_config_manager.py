"""total_config.py names the env manager once: a run's file holds the manager the run built (a
`--config` override included) in create_config.env_manager only, and a config file that names
two different managers (main_config.env.manager.type, create_config.env_manager.type) is one
`ding: error:` line instead of one copy being ignored."""
import copy

import pytest

from ding.config import compile_config, read_config
from ding.config.validate import ConfigKeyError
from ding.entry.cli import main as cli
from dizoo.classic_control.cartpole.config.cartpole_dqn_config import create_config, main_config


def test_a_runs_total_config_names_the_manager_it_built_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    user = copy.deepcopy(main_config)
    user.exp_name = 'run'
    user.env.manager = dict(user.env.get('manager') or {}, type='subprocess')  # as `--config` would override it
    assert create_config.env_manager.type == 'base'
    cfg = compile_config(user, create_cfg=create_config, auto=True, seed=0)
    assert cfg.env.manager.type == 'subprocess'
    saved_main, saved_create = read_config('run/total_config.py')
    assert 'type' not in saved_main.env.manager
    assert saved_create.env_manager.type == 'subprocess'
    again = compile_config(saved_main, create_cfg=saved_create, auto=True, seed=0, save_cfg=False)
    assert again.env.manager == cfg.env.manager


def write_two_managers(path, in_main, in_create):
    # copies: the file runs in this process, and the dizoo module's dicts are shared with every other test
    path.write_text('import copy\n'
                    'from dizoo.classic_control.cartpole.config import cartpole_dqn_config as base\n'
                    'main_config, create_config = copy.deepcopy(base.main_config), copy.deepcopy(base.create_config)\n'
                    f'main_config.env.manager = dict(type={in_main!r})\n'
                    f'create_config.env_manager = dict(type={in_create!r})\n')


def test_a_config_file_naming_two_managers_is_refused(tmp_path):
    path = tmp_path / 'total_config.py'
    write_two_managers(path, 'subprocess', 'base')
    with pytest.raises(ConfigKeyError) as err:
        read_config(str(path))
    assert str(err.value) == (f"{path}: main_config.env.manager.type is 'subprocess' but "
                              f"create_config.env_manager.type is 'base'; name the env manager in one of them")
    write_two_managers(path, 'base', 'base')  # the same manager twice, as DI-engine writes it: fine
    main, create = read_config(str(path))
    assert main.env.manager.type == create.env_manager.type == 'base'


def test_ding_train_on_such_a_file_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write_two_managers(tmp_path / 'cfg.py', 'subprocess', 'base')
    assert cli(['train', '-f', 'cfg.py', '--max-env-step', '100', '--exp-name', 'run']) == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and err.startswith('ding: error: cfg.py: main_config.env.manager.type is ')
    assert not (tmp_path / 'run').exists()
