"""Acceptance: DI-engine 0.5.3's own `ding/example/c51_nstep.py`, `qrdqn_nstep.py`,
`iqn_nstep.py`, `pdqn.py` (issue 14), `ppg_offpolicy.py` and `d4pg.py` (issue 15), with
`import gym` changed to gymnasium and nothing else, run against this package and end at their
stop value (the evaluator finishes the task at 195 on CartPole, at 1.8 on gym-hybrid's
Moving-v0, at -250 on Pendulum)."""

import pytest

from tests.di_engine_wheel import di_engine_file, run_example_unchanged


@pytest.mark.slow
@pytest.mark.parametrize('name,stop_value,exp_name', [
    ('c51_nstep', 195.0, 'cartpole_c51_nstep'),
    ('qrdqn_nstep', 195.0, 'cartpole_qrdqn_nstep'),
    ('iqn_nstep', 195.0, 'cartpole_iqn_nstep'),
    ('pdqn', 1.8, 'gym_hybrid_pdqn_seed0'),
    ('ppg_offpolicy', 195.0, 'cartpole_ppg_offpolicy_seed0'),
    ('d4pg', -250.0, 'pendulum_d4pg_seed0'),
])
def test_di_engine_example_reaches_its_stop_value(tmp_path, name, stop_value, exp_name):
    source = di_engine_file(f'ding/example/{name}.py')
    assert source.count('import gym\n') == 1 and source.startswith('import gym\n')
    proc = run_example_unchanged(name, tmp_path)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:]
    assert f'stop_value {stop_value} reached' in out, out[-3000:]
    assert (tmp_path / exp_name / 'ckpt').is_dir()
