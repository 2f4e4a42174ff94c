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
# every shipped tuned file: the directory's yaml files (the listing's and the wheel's are checked against them)
TUNED_FILES = sorted(n for n in os.listdir(CONFIG_DIR) if n.endswith('.yaml'))


def test_tuned_configs_live_inside_the_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert CONFIG_DIR == os.path.join(os.path.dirname(os.path.abspath(ding.__file__)), 'config', 'tuned')
    assert [os.path.basename(t.path) for t in tuned_configs()] == TUNED_FILES
    assert {'dqn_cartpole-v1.yaml', 'sac_pendulum-v1.yaml', 'r2d2_cartpole-v0.yaml'} <= set(TUNED_FILES)
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
