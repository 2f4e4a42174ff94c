"""The plumbing the dizoo entry scripts share: flags read off `main`'s signature, and config
loading that names the run after the seed without touching the config module."""
import sys

from dizoo.classic_control.cartpole.config import cartpole_ppo_config
from dizoo.common.cli import run_from_command_line
from dizoo.common.config_loader import load_config


def _main(seed: int = 0, stop_value: float = 195, continuous: bool = False, exp_name: str = None):
    return dict(seed=seed, stop_value=stop_value, continuous=continuous, exp_name=exp_name)


def test_flags_are_mains_keyword_arguments(monkeypatch):
    monkeypatch.setattr(sys, 'argv', ['prog', '--seed', '3', '--stop-value', '480.5', '--continuous',
                                      '--exp-name', 'run'])
    assert run_from_command_line(_main) == {'seed': 3, 'stop_value': 480.5, 'continuous': True, 'exp_name': 'run'}


def test_no_flags_give_mains_defaults(monkeypatch):
    monkeypatch.setattr(sys, 'argv', ['prog'])
    assert run_from_command_line(_main) == {'seed': 0, 'stop_value': 195, 'continuous': False, 'exp_name': None}


def test_load_config_names_the_run_after_the_seed_and_applies_overrides():
    cfg = load_config('dizoo.classic_control.cartpole.config.cartpole_ppo_config', 2,
                      overrides={'env': {'stop_value': 100}}, save_cfg=False)
    assert (cfg.exp_name, cfg.seed, cfg.env.stop_value) == ('cartpole_ppo_seed2', 2, 100)
    assert cartpole_ppo_config.main_config.env.stop_value == 195
    assert cartpole_ppo_config.main_config.exp_name == 'cartpole_ppo_seed0'
