"""R2D2 end to end (slow): DI-engine 0.5.3's own `ding/example/r2d2.py` (with `import gym`
changed to gymnasium, nothing else) runs against this package and stops at its stop value.
`ding train --algo r2d2 --env CartPole-v0` (the tuned pair on `cartpole_r2d2_config`) reaching 195
is tests/learning/test_tuned_pairs.py's."""
import pytest

from tests.di_engine_wheel import di_engine_file, run_example_unchanged


@pytest.mark.slow
def test_di_engine_r2d2_example_reaches_its_stop_value(tmp_path):
    source = di_engine_file('ding/example/r2d2.py')
    assert source.count('import gym\n') == 1 and source.startswith('import gym\n')
    proc = run_example_unchanged('r2d2', tmp_path)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:]
    assert 'stop_value 195.0 reached' in out, out[-3000:]
    assert (tmp_path / 'cartpole_r2d2_seed0' / 'ckpt').is_dir()
