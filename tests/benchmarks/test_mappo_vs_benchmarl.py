"""The protocol parts of benchmarks/compare/mappo_vs_benchmarl.py (ours against BenchMARL on
simple_spread): it refuses tuning seeds before anything runs, a run that ends at its budget says
"not reached in N env steps", and a run its wall cap stopped gets no ratio. No peer is needed."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path += [str(ROOT / 'benchmarks' / 'compare')]  # appended: never shadows

import mappo_vs_benchmarl as mvb  # noqa: E402
from aggregate import summarize_threshold  # noqa: E402


def run(evals, total_wall_s=100.0, **extra):
    return dict(evals=evals, total_wall_s=total_wall_s, **extra)


def result(ours_runs, peer_runs, budget=300_000):
    logs = lambda runs, stop: {s: mvb.as_log(r, stop(r)) for s, r in runs.items()}  # noqa: E731
    return {'threshold': -130.0, 'seeds': sorted(ours_runs), 'max_env_step': budget,
            'summary': {'ours': summarize_threshold(logs(ours_runs, lambda r: 'threshold'), -130.0),
                        'ours_peer_net': summarize_threshold(logs(OURS_PEER_NET, lambda r: 'threshold'), -130.0),
                        'benchmarl': summarize_threshold(logs(peer_runs, lambda r: r['stop']), -130.0)}}


OURS = {1000: run([(3200, 1, 5.0, -180.0), (6400, 2, 10.0, -120.0)]),
        1001: run([(3200, 1, 6.0, -125.0)]),
        1002: run([(3200, 1, 5.0, -200.0), (6400, 2, 12.0, -129.0)])}
OURS_PEER_NET = {seed: run([(3200, 1, 20.0, -200.0), (6400, 2, 40.0, -100.0)]) for seed in OURS}


def test_a_tuning_seed_is_refused_before_anything_runs(monkeypatch, capsys):
    monkeypatch.setattr(mvb, 'check_our_metric', lambda: pytest.fail('ran before refusing the seed'))
    monkeypatch.setattr(sys, 'argv', ['mappo_vs_benchmarl.py', '--seeds', '1000', '2'])
    with pytest.raises(SystemExit) as stop:
        mvb.main()
    assert stop.value.code == 2 and 'seed 2' in capsys.readouterr().err


def test_both_reaching_gives_the_ratio_of_median_times():
    peer = {s: run([(6000, 1, 50.0, -200.0), (12000, 2, 100.0, -100.0)], stop='threshold') for s in OURS}
    row = mvb.markdown(result(OURS, peer)).splitlines()[2]
    assert '| 10.0 s / 6.4k (3/3) | 40.0 s / 6.4k (3/3) | 100.0 s / 12k (3/3) |' in row
    assert row.endswith('| 0.10x | 0.40x |')


def test_a_peer_at_its_budget_is_not_reached_and_gets_no_ratio():
    peer = {s: run([(6000, 1, 50.0, -300.0), (300_000, 50, 2400.0, -150.0)], stop='env_step_budget') for s in OURS}
    row = mvb.markdown(result(OURS, peer)).splitlines()[2]
    assert 'not reached in 300k env steps (0/3)' in row and row.endswith('| - | - |')


def test_a_run_stopped_by_the_wall_cap_gives_no_ratio_even_where_others_reached():
    peer = {1000: run([(6000, 1, 50.0, -100.0)], stop='threshold'),
            1001: run([(6000, 1, 50.0, -100.0)], stop='threshold'),
            1002: run([(6000, 1, 10800.0, -300.0)], stop='wall_cap')}
    row = mvb.markdown(result(OURS, peer)).splitlines()[2]
    assert '1 wall-capped' in row and row.endswith('| no ratio (wall cap) | no ratio (wall cap) |')
