"""Acceptance: DI-engine 0.5.3's own `ding/example/collect_demo_data.py`, then
`ding/example/cql.py`, with `import gym` changed to gymnasium and nothing else, run against
this package: the first records 1000 Pendulum transitions with a trained SAC into
`pendulum_sac_data_generation/expert_demos.hdf5`, the second trains CQL on them until the
evaluator's stop value (-250) ends it.

The SAC checkpoint the first one loads (`pendulum_sac_seed0/ckpt/final.pth.tar`, 128 hidden
units) is trained here first with our SAC (pendulum_make_dataset.expert_checkpoint, ~5k env
steps). Measured under load on the 2-core dev machine: expert ~30 s, collection ~2 s, CQL
~2 min (about 2k updates to reach -250; cql.py has no other budget, so the subprocess timeout
bounds it)."""
import os
import pathlib
import subprocess
import sys

import pytest

from tests.di_engine_wheel import di_engine_file

ROOT = pathlib.Path(__file__).resolve().parents[2]


def example(tmp_path: pathlib.Path, name: str) -> pathlib.Path:
    source = di_engine_file(f'ding/example/{name}.py')
    assert source.startswith('import gym\n')
    script = tmp_path / f'{name}.py'
    script.write_text(source.replace('import gym\n', 'import gymnasium as gym\n', 1))
    return script


def run(script: pathlib.Path, timeout: int) -> str:
    env = dict(os.environ, OMP_NUM_THREADS='1',
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    proc = subprocess.run([sys.executable, str(script)], cwd=script.parent, env=env, capture_output=True, text=True,
                          timeout=timeout)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    return out


@pytest.mark.slow
def test_collect_demo_data_then_cql(tmp_path, monkeypatch):
    pytest.importorskip('h5py')
    from ding.data.offline_dataset import read_hdf5
    from dizoo.classic_control.pendulum.entry.pendulum_make_dataset import expert_checkpoint
    monkeypatch.chdir(tmp_path)
    assert os.path.isfile(expert_checkpoint(str(tmp_path / 'pendulum_sac_seed0')))
    run(example(tmp_path, 'collect_demo_data'), timeout=300)
    data = read_hdf5(str(tmp_path / 'pendulum_sac_data_generation' / 'expert_demos.hdf5'))
    assert data['obs'].shape == (1000, 3) and data['action'].shape == (1000, 1)
    out = run(example(tmp_path, 'cql'), timeout=900)
    assert 'stop_value -250.0 reached' in out, out[-3000:]
    assert (tmp_path / 'pendulum_cql' / 'ckpt' / 'eval.pth.tar').is_file()
