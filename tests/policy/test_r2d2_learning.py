"""R2D2 end to end (slow): DI-engine 0.5.3's own `ding/example/r2d2.py` (with `import gym`
changed to gymnasium, nothing else) runs against this package and stops at its stop value,
and `cartpole_r2d2_config` through `ding train`'s pipeline reaches 195 on CartPole-v0."""
import pathlib

import pytest

from tests.di_engine_wheel import di_engine_file, run_example_unchanged

ROOT = pathlib.Path(__file__).resolve().parents[2]
R2D2_CONFIG = ROOT / 'dizoo' / 'classic_control' / 'cartpole' / 'config' / 'cartpole_r2d2_config.py'


@pytest.mark.slow
def test_di_engine_r2d2_example_reaches_its_stop_value(tmp_path):
    source = di_engine_file('ding/example/r2d2.py')
    assert source.count('import gym\n') == 1 and source.startswith('import gym\n')
    proc = run_example_unchanged('r2d2', tmp_path)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:]
    assert 'stop_value 195.0 reached' in out, out[-3000:]
    assert (tmp_path / 'cartpole_r2d2_seed0' / 'ckpt').is_dir()


@pytest.mark.slow
def test_r2d2_reaches_195_on_cartpole_v0(tmp_path):
    from ding.entry.pipeline import RunOptions
    from ding.entry.train import resolve_config, start_run
    main, create, info = resolve_config(None, None, str(R2D2_CONFIG))
    options = RunOptions(max_env_step=40_000, progress=False, checkpoint_freq=10 ** 9)
    cfg, ctx = start_run(main, create, info, 0, options, exp_name=str(tmp_path / 'r2d2'))
    assert cfg.policy.type == 'r2d2'
    assert ctx.last_eval_value >= 195 and ctx.env_step <= 40_000
