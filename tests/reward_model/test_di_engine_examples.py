"""Acceptance: DI-engine 0.5.3's own `ding/example/dqn_her.py`, `dqn_rnd.py`, `sql.py`, `mappo.py`
and `masac.py`, with `import gym` changed to gymnasium and nothing else, run against this package
and end at their stop value (the evaluator finishes the task: 0.9 success on 5-bit flipping, 195
on CartPole, -130 on PettingZoo simple_spread, the stop value of our dizoo ptz configs that the
multi-agent examples import). Each takes 10-30 s on this machine when it is not loaded."""

import pytest

from tests.di_engine_wheel import di_engine_file, run_example_unchanged

EXAMPLES = {
    'dqn_her': ('stop_value 0.9 reached', 'bitflip_5bit_herdqn_seed0'),
    'dqn_rnd': ('stop_value 195.0 reached', 'cartpole_dqn_rnd'),
    'sql': ('stop_value 195.0 reached', 'cartpole_sql_seed0'),
    'mappo': ('stop_value -130.0 reached', 'ptz_simple_spread_mappo_seed0'),
    'masac': ('stop_value -130.0 reached', 'ptz_simple_spread_masac_seed0'),
}


@pytest.mark.slow
@pytest.mark.parametrize('name', sorted(EXAMPLES))
def test_di_engine_example_reaches_its_stop_value(tmp_path, name):
    source = di_engine_file(f'ding/example/{name}.py')
    assert source.startswith('import gym\n') and 'from gym' not in source
    proc = run_example_unchanged(name, tmp_path)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:]
    reached, exp_name = EXAMPLES[name]
    assert reached in out, out[-3000:]
    assert (tmp_path / exp_name / 'ckpt').is_dir()
