"""The tuned configs are package data: found from any working directory and shipped in a wheel."""
import glob
import os
import shutil
import subprocess
import sys
import zipfile

import ding
from ding.entry.catalog import CONFIG_DIR, find_tuned, tuned_configs

REPO = os.path.dirname(os.path.dirname(os.path.abspath(ding.__file__)))
TUNED_FILES = ['a2c_cartpole-v1.yaml', 'c51_cartpole-v0.yaml', 'ddpg_pendulum-v1.yaml', 'dqn_cartpole-v0.yaml',
               'dqn_cartpole-v1.yaml', 'fqf_cartpole-v0.yaml', 'iqn_cartpole-v0.yaml', 'pg_cartpole-v1.yaml', 'ppo_cartpole-v1.yaml',
               'ppo_lunarlander-v3.yaml', 'ppo_pendulum-v1.yaml', 'qrdqn_cartpole-v0.yaml', 'rainbow_cartpole-v0.yaml',
               'sac_pendulum-v1.yaml', 'td3_pendulum-v1.yaml']


def test_tuned_configs_live_inside_the_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert CONFIG_DIR == os.path.join(os.path.dirname(os.path.abspath(ding.__file__)), 'config', 'tuned')
    assert [os.path.basename(t.path) for t in tuned_configs()] == TUNED_FILES
    dqn_v1 = find_tuned('dqn', 'CartPole-v1')
    assert dqn_v1.base_config == 'dizoo.classic_control.cartpole.config.cartpole_dqn_v1_config'


def test_wheel_ships_the_tuned_configs(tmp_path):
    """Build a wheel from a copy of the sources (so no build/ lands in the checkout)."""
    src = tmp_path / 'src'
    ignore = shutil.ignore_patterns('__pycache__', '*.egg-info')
    for name in ('ding', 'dizoo'):
        shutil.copytree(os.path.join(REPO, name), src / name, ignore=ignore)
    shutil.copy(os.path.join(REPO, 'setup.py'), src / 'setup.py')
    subprocess.run([sys.executable, '-m', 'pip', 'wheel', '-q', '--no-deps', '--no-build-isolation', str(src), '-w',
                    str(tmp_path / 'dist')], check=True, capture_output=True)
    wheel = zipfile.ZipFile(glob.glob(str(tmp_path / 'dist' / '*.whl'))[0])
    shipped = sorted(n for n in wheel.namelist() if n.endswith('.yaml'))
    assert shipped == ['ding/config/tuned/' + name for name in TUNED_FILES]
