"""The pure parts of benchmarks/compare/d3rlpy_offline.py (ours against d3rlpy offline): the seed
guard refuses tuning seeds before anything trains, and the results file draws the table that
replaces docs/offline.md's marker. No peer framework is needed."""
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path += [str(ROOT / 'benchmarks' / 'compare'), str(ROOT / 'docs' / 'gen')]  # appended: never shadows

import d3rlpy_offline  # noqa: E402
import marked_tables  # noqa: E402


def median(ms: float, final: float, vs_peer: float = None) -> dict:
    out = {'median_ms_per_update': ms, 'median_final_return': final, 'median_final_normalised': final / -10.0}
    return out if vs_peer is None else dict(out, time_per_update_vs_d3rlpy=vs_peer)


def small_results() -> dict:
    run = {'date': '2026-11-30T00:00:00+00:00', 'updates': 5000, 'seeds': [1000, 1001, 1002]}
    return {'eval_every': 500, 'reference_returns': {'random': -1391.0, 'expert': -217.0},
            'results': {'cql': {'ours': {'median': median(20.0, -211.0, 0.2)},
                                'ours_matched': {'median': median(50.0, -250.0, 0.5)},
                                'd3rlpy': {'median': median(100.0, -231.0, 1.0)}, 'run': run},
                        'iql': {'ours': {'median': median(3.0, -288.0)}, 'run': run}}}


def test_the_table_gives_each_run_its_time_ratio_and_return():
    table = d3rlpy_offline.markdown(small_results())
    cql, iql = (line for line in table.splitlines() if line.startswith(('| CQL', '| IQL')))
    assert '20.00 / 50.00 / 100.00' in cql and '0.20x / 0.50x' in cql and '-250 (25)' in cql
    assert '1000, 1001, 1002' in cql
    assert '3.00 / - / -' in iql and '- / -' in iql  # a run that was not made is a dash, never a ratio
    assert '5,000 updates' in table and '-1,391 scores 0' in table


def test_a_tuning_seed_is_refused_before_anything_trains(monkeypatch, capsys):
    monkeypatch.setattr(d3rlpy_offline, 'run_ours', lambda *a, **k: pytest.fail('trained on a refused seed'))
    monkeypatch.setattr(d3rlpy_offline, 'ensure_dataset', lambda *a: pytest.fail('made a dataset first'))
    monkeypatch.setattr(sys, 'argv', ['d3rlpy_offline.py', '--seeds', '0', '1000', '--runs', 'ours'])
    with pytest.raises(SystemExit) as stop:
        d3rlpy_offline.main()
    assert stop.value.code == 2 and 'seed 0' in capsys.readouterr().err


def test_the_offline_page_marker_becomes_the_table(tmp_path):
    results = tmp_path / 'd3rlpy_offline_pendulum.json'
    results.write_text(json.dumps(small_results()))
    page = (ROOT / 'docs' / 'offline.md').read_text()
    named = 'benchmarks/results/d3rlpy_offline_pendulum.json'
    filled = marked_tables.fill('offline.md', page, {named: str(results)})
    assert marked_tables.marker(named) not in filled and '20.00 / 50.00 / 100.00' in filled
    with pytest.raises(RuntimeError, match='exactly once'):
        marked_tables.fill('offline.md', page.replace(marked_tables.marker(named), ''), {named: str(results)})
