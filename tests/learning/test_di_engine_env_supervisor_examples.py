"""Acceptance: DI-engine 0.5.3's own `ding/example/dqn_new_env.py` (EnvSupervisor from
`ding.framework.supervisor`) and then `dqn_eval.py` (the checkpoint it wrote), with `import gym`
changed to gymnasium and nothing else, run against this package: the first reaches its stop
value, the second evaluates the saved weights."""
import os
import pathlib
import subprocess
import sys

import pytest

from tests.di_engine_wheel import di_engine_file

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_example(name: str, cwd: pathlib.Path) -> str:
    source = di_engine_file(f'ding/example/{name}.py')
    assert source.startswith('import gym\n')
    script = cwd / f'{name}.py'
    script.write_text(source.replace('import gym\n', 'import gymnasium as gym\n', 1))
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    proc = subprocess.run([sys.executable, str(script)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=500)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    return out


@pytest.mark.slow
def test_dqn_new_env_then_dqn_eval(tmp_path):
    out = run_example('dqn_new_env', tmp_path)
    assert 'stop_value 195.0 reached' in out, out[-3000:]
    assert (tmp_path / 'cartpole_dqn_seed0' / 'ckpt' / 'final.pth.tar').is_file()
    out = run_example('dqn_eval', tmp_path)
    assert 'evaluation: env_step=0 train_iter=0 return mean=' in out, out[-3000:]
