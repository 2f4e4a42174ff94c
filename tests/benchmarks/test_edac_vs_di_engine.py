"""The pure parts of benchmarks/compare/edac_vs_di_engine.py (our EDAC against DI-engine's own):
the seed guard refuses tuning seeds before a dataset is made or anything trains; the table gives
each framework its time and returns; both sides' evaluation maps actions onto the env's bounds;
DI-engine's side gets the data in the form its D4RLDataset holds. No peer framework is needed."""
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path += [str(ROOT / 'benchmarks' / 'compare')]  # appended: never shadows

import edac_di_engine_runner  # noqa: E402
import edac_vs_di_engine  # noqa: E402
import offline_eval  # noqa: E402


def test_a_tuning_seed_is_refused_before_anything_is_made(monkeypatch, capsys):
    monkeypatch.setattr(edac_vs_di_engine, 'ensure_dataset', lambda *a: pytest.fail('made a dataset first'))
    monkeypatch.setattr(edac_vs_di_engine, 'one_run', lambda *a, **k: pytest.fail('trained on a refused seed'))
    monkeypatch.setattr(sys, 'argv', ['edac_vs_di_engine.py', '--seeds', '1000', '7', '--runs', 'ours'])
    with pytest.raises(SystemExit) as stop:
        edac_vs_di_engine.main()
    assert stop.value.code == 2 and 'seed 7' in capsys.readouterr().err


def test_the_table_gives_each_framework_its_time_and_returns():
    def result(ms, finals, bests):
        runs = [{'seed': s, 'ms_per_update': ms, 'final_return': f, 'best_return': b}
                for s, f, b in zip((1000, 1001, 1002), finals, bests)]
        return {'median': edac_vs_di_engine.aggregate(runs), 'runs': runs}
    data = {'updates': 6000, 'eval_every': 500, 'episodes': 10, 'reference_returns': {'random': -280.0, 'dataset': 4947.0},
            'results': {'ours': result(130.0, [900.0, -50.0, 400.0], [950.0, 300.0, 700.0]),
                        'di_engine': result(450.0, [100.0, 200.0, 2000.0], [500.0, 600.0, 2100.0])}}
    ours, theirs = (line for line in edac_vs_di_engine.markdown(data).splitlines() if line.startswith(('| ding', '| DI-engine')))
    assert ours.startswith('| ding (ours) | 1000, 1001, 1002 | 130 | 400 | 700 | 900, -50, 400 |')
    assert theirs.startswith('| DI-engine 0.5.3 |') and '| 450 | 200 | 600 |' in theirs
    assert "6,000 updates" in edac_vs_di_engine.markdown(data) and '4,947' in edac_vs_di_engine.markdown(data)


def test_the_evaluation_maps_actions_in_minus_one_one_onto_the_env_bounds():
    # Pendulum's torque is [-2, 2]: an action of 1 is full torque, and beyond 1 is clipped there
    full = offline_eval.evaluate(lambda obs: np.ones(1), 'Pendulum-v1', episodes=1)
    clipped = offline_eval.evaluate(lambda obs: np.full(1, 5.0), 'Pendulum-v1', episodes=1)
    env = gym.make('Pendulum-v1')
    env.reset(seed=offline_eval.EVAL_SEED_BASE)
    total, done = 0.0, False
    while not done:
        _, reward, terminated, truncated, _ = env.step(np.array([2.0], np.float32))
        total, done = total + reward, terminated or truncated
    assert full == clipped == pytest.approx(total)


def test_di_engine_gets_one_dict_of_tensors_per_transition(tmp_path):
    n = 5
    columns = dict(obs=np.random.rand(n, 17), next_obs=np.random.rand(n, 17), action=np.random.rand(n, 6),
                   reward=np.arange(n, dtype=np.float64), done=np.array([0, 0, 1, 0, 0]), truncated=np.zeros(n, bool))
    np.savez(tmp_path / 'd.npz', **columns)
    rows = edac_di_engine_runner.transitions(str(tmp_path / 'd.npz'))
    assert len(rows) == n and set(rows[0]) == {'obs', 'next_obs', 'action', 'reward', 'done'}
    assert rows[0]['obs'].dtype == torch.float32 and rows[0]['obs'].shape == (17, )
    assert rows[3]['reward'].shape == () and float(rows[3]['reward']) == 3.0
    assert [r['done'] for r in rows] == [False, False, True, False, False]


def _part(runs_by_name, updates=6000, complete=True):
    results = {name: {'median': edac_vs_di_engine.aggregate(runs), 'runs': runs} for name, runs in runs_by_name.items()}
    return {'benchmark': 'edac_vs_di_engine', 'date': '2026-12-01T03:00:00+00:00', 'complete': complete,
            'dataset': {'path': 'd.hdf5', 'id': 'halfcheetah-medium-v2'}, 'updates': updates, 'eval_every': 500,
            'episodes': 10, 'torch_threads': 1, 'reference_returns': {'random': -280.0, 'dataset': 4947.0},
            'note': 'a part', 'machine_cpu_fractions': None, 'results': results}


def _run(seed, final):
    return {'seed': seed, 'ms_per_update': 150.0, 'final_return': final, 'best_return': final}


def test_parts_run_side_by_side_merge_into_one_table():
    ours = _part({'ours': [_run(1000, 1.0), _run(1001, 2.0), _run(1002, 3.0)]})
    peer_a = _part({'di_engine': [_run(1001, 20.0), _run(1000, 10.0)]})
    peer_b = _part({'di_engine': [_run(1002, 30.0)]}, complete=False)
    out = edac_vs_di_engine.merge([ours, peer_a, peer_b])
    assert [r['seed'] for r in out['results']['di_engine']['runs']] == [1000, 1001, 1002]
    assert out['results']['di_engine']['median']['median_final_return'] == 20.0
    assert out['results']['ours']['median']['seeds'] == 3 and out['complete'] is False
    # a committed (merged) result joined with a later part: one flat entry per part run
    first = dict(edac_vs_di_engine.merge([ours, peer_a]), machine_cpu_fractions=[{'busy': 1.0}, {'busy': 0.9}])
    later = dict(peer_b, machine_cpu_fractions={'busy': 0.8})
    again = edac_vs_di_engine.merge([first, later])
    assert again['machine_cpu_fractions'] == [{'busy': 1.0}, {'busy': 0.9}, {'busy': 0.8}]
    assert again['results']['di_engine']['median']['median_final_return'] == 20.0
    with pytest.raises(ValueError, match='di_engine has a seed twice'):
        edac_vs_di_engine.merge([peer_a, peer_a])
    with pytest.raises(ValueError, match=r"differ in \['updates'\]"):
        edac_vs_di_engine.merge([ours, _part({'di_engine': [_run(1000, 1.0)]}, updates=3000)])
    remade = _part({'di_engine': [_run(1002, 30.0)]})
    remade['dataset'] = dict(remade['dataset'], sha256='another file')  # the same path, made again
    with pytest.raises(ValueError, match=r"differ in \['dataset'\]"):
        edac_vs_di_engine.merge([ours, remade])
