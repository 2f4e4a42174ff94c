"""Acceptance: DI-engine 0.5.3's own `ding/example/ppo_with_complex_obs.py` (dict observations,
`EvalEpisodeReturnWrapper` through `env_wrapper`), with `import gym` / `from gym import spaces`
changed to gymnasium and nothing else. Its env pays random rewards, so its stop value (195) is
out of reach and it would run forever: the test lets it evaluate and train (a learner log line),
then stops it."""
import os
import pathlib
import subprocess
import sys
import time

import pytest

from tests.di_engine_wheel import di_engine_file

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRAINED = 'ding.learner: train_iter='


def example_source() -> str:
    source = di_engine_file('ding/example/ppo_with_complex_obs.py')
    for old, new in (('import gym\n', 'import gymnasium as gym\n'),
                     ('from gym import spaces\n', 'from gymnasium import spaces\n')):
        assert old in source
        source = source.replace(old, new, 1)
    return source


@pytest.mark.slow
def test_ppo_with_complex_obs_runs_unchanged(tmp_path):
    script = tmp_path / 'ppo_with_complex_obs.py'
    script.write_text(example_source())
    log = tmp_path / 'out.log'
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    with open(log, 'w') as out:
        proc = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, env=env, stdout=out,
                                stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 400
            while time.monotonic() < deadline and proc.poll() is None and TRAINED not in log.read_text():
                time.sleep(1)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)
    text = log.read_text()
    assert 'ding.evaluator: evaluation: env_step=0' in text, text[-3000:]
    assert TRAINED in text, text[-3000:]
