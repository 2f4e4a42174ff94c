"""Issue 37's protocol in benchmarks/compare: a published table uses held-out seeds (1000+, none
that a recorded sweep tuned on), and a framework stopped by its wall cap is 'not reached', never
a ratio. No peer framework is needed."""
import json
import sys
from pathlib import Path

import pytest

COMPARE = Path(__file__).resolve().parents[2] / 'benchmarks' / 'compare'
sys.path += [str(COMPARE), str(COMPARE / 'runners')]  # appended: never shadows another test's modules

import aggregate  # noqa: E402
import report_table  # noqa: E402
import run as compare_run  # noqa: E402
import seed_guard  # noqa: E402


def write_log(path, evals, end_reason):
    """A runner log: start, one eval line per (env_steps, wall_s, mean_return), then the end record."""
    lines = [{'event': 'start', 'versions': {'x': '1'}}]
    lines += [{'event': 'eval', 'env_steps': s, 'wall_s': w, 'mean_return': r} for s, w, r in evals]
    if end_reason is not None:
        lines.append({'event': 'end', 'reason': end_reason, 'env_steps': evals[-1][0], 'wall_s': evals[-1][1],
                      'eval_s': 0.25})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(''.join(json.dumps(line) + '\n' for line in lines))


def write_sweep(path, tuning_seeds):
    path.write_text(json.dumps({'rows': {}, 'tuning_seeds': tuning_seeds}))
    return path


def harness(tmp_path, *args):
    """The harness rebuilding its tables from (empty) logs into tmp_path/results."""
    return compare_run.main(['--aggregate-only', '--benchmarks', 'dqn_cartpole_v1', '--frameworks', 'sb3',
                             '--logs-dir', str(tmp_path / 'logs'), '--results-dir', str(tmp_path / 'results'),
                             *args])


def refusal(capsys):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_the_harness_refuses_a_seed_that_a_recorded_sweep_tuned_on(tmp_path, capsys):
    sweep = write_sweep(tmp_path / 'my_sweep.json', [0, 1, 1001])
    with pytest.raises(SystemExit) as stop:
        harness(tmp_path, '--seeds', '1000', '1001', '--sweeps', str(sweep))
    assert stop.value.code == 2
    line = refusal(capsys)
    assert 'seed 1001' in line and str(sweep) in line
    assert not (tmp_path / 'results').exists()  # refused before anything was run or written
    harness(tmp_path, '--seeds', '1000', '1002', '--sweeps', str(sweep))  # held-out seeds: accepted
    assert json.loads((tmp_path / 'results' / 'compare.json').read_text())['seeds'] == [1000, 1002]


def test_a_sweep_file_without_recorded_tuning_seeds_is_refused_not_assumed_clean(tmp_path, capsys):
    sweep = tmp_path / 'old_sweep.json'
    sweep.write_text(json.dumps({'rows': {'shipped': {'per_seed': {'1000': None}}}}))
    with pytest.raises(SystemExit) as stop:
        harness(tmp_path, '--seeds', '1000', '--sweeps', str(sweep))
    assert stop.value.code == 2 and 'records no tuning_seeds' in refusal(capsys)


def test_seed_0_is_refused_for_a_reported_table_and_allowed_as_a_tuning_run(tmp_path, capsys):
    sweep = write_sweep(tmp_path / 'sweep.json', [])
    with pytest.raises(SystemExit) as stop:
        harness(tmp_path, '--seeds', '0', '--sweeps', str(sweep))
    assert stop.value.code == 2 and 'seed 0' in refusal(capsys)
    # --tuning: allowed, even on a swept seed, but never into the published compare.json / compare.md
    harness(tmp_path, '--seeds', '0', '--tuning', '--sweeps', str(write_sweep(tmp_path / 's.json', [0])))
    assert sorted(p.name for p in (tmp_path / 'results').iterdir()) == ['compare_tuning.json', 'compare_tuning.md']
    results = json.loads((tmp_path / 'results' / 'compare_tuning.json').read_text())
    assert results['tuning'] is True and results['seeds'] == [0]
    assert 'TUNING run' in (tmp_path / 'results' / 'compare_tuning.md').read_text()


def test_the_recorded_sweeps_carry_their_tuning_seeds_and_the_defaults_avoid_them():
    for path in seed_guard.SWEEP_RESULTS:
        seeds = seed_guard.tuning_seeds_of(path)
        assert seeds and all(0 <= s < 100 for s in seeds), path
    seed_guard.check_reporting_seeds(compare_run.parse_args([]).seeds)  # the default table is publishable


def test_a_wall_capped_peer_row_is_not_reached_and_gets_no_ratio(tmp_path):
    logs = tmp_path / 'logs' / 'full' / 'dqn_cartpole_v1'
    for seed in (1000, 1001, 1002):
        write_log(logs / f'ours_seed{seed}.jsonl', [(1000, 1.0, 200.0), (2000, 2.0, 480.0)], 'threshold')
        # SB3 stopped by its wall cap at 33,488 env steps, short of 195: its time to 195 is unknown
        write_log(logs / f'sb3_seed{seed}.jsonl', [(1000, 50.0, 20.0), (33_488, 600.0, 150.0)], 'wall_cap')
        write_log(logs / f'tianshou_seed{seed}.jsonl', [(1000, 4.0, 200.0), (3000, 12.0, 490.0)], 'threshold')
    sweep = write_sweep(tmp_path / 'sweep.json', [0])
    compare_run.main(['--aggregate-only', '--benchmarks', 'dqn_cartpole_v1', '--frameworks', 'ours', 'sb3',
                      'tianshou', '--logs-dir', str(tmp_path / 'logs'), '--results-dir', str(tmp_path / 'results'),
                      '--sweeps', str(sweep)])
    results = json.loads((tmp_path / 'results' / 'compare.json').read_text())
    sb3 = results['benchmarks']['dqn_cartpole_v1']['frameworks']['sb3']['thresholds'][0]
    assert sb3['wall_capped'] == {'1000': 33_488, '1001': 33_488, '1002': 33_488}
    md = (tmp_path / 'results' / 'compare.md').read_text().splitlines()
    row = next(line for line in md if line.startswith('| DQN CartPole-v1 | 195 |'))
    assert row == ('| DQN CartPole-v1 | 195 | 1.0 s / 1k (3/3) | not reached in 33.5k env steps (wall cap) (0/3) '
                   '| 4.0 s / 1k (3/3) | no ratio (wall cap) |')  # not 0.25x against Tianshou alone


def test_a_budget_limited_peer_is_a_result_and_the_ratio_stands():
    def fw(wall, capped=None):
        return {'thresholds': [{'reached': 3 if wall else 0, 'seeds': 3, 'median_wall_s': wall,
                                'median_env_steps': 2000 if wall else None, 'wall_capped': capped or {}}]}
    per_fw = {'ours': fw(2.0), 'sb3': fw(None), 'tianshou': fw(8.0)}
    assert aggregate.speed_ratio(per_fw, 0) == 0.25  # SB3 missed 195 within its whole env-step budget
    assert report_table.format_cell(per_fw['sb3']['thresholds'][0], 100_000) == 'not reached in 100k env steps (0/3)'
    per_fw['tianshou'] = fw(8.0, capped={'1002': 40_000})  # one capped seed is enough to withhold the ratio
    per_fw['tianshou']['thresholds'][0]['reached'] = 2
    assert aggregate.speed_ratio(per_fw, 0) is None
    assert report_table.format_cell(per_fw['tianshou']['thresholds'][0], 100_000) == '8.0 s / 2k (2/3, 1 wall-capped)'


def test_a_run_killed_before_its_end_record_counts_as_stopped_early(tmp_path):
    write_log(tmp_path / 'killed.jsonl', [(1000, 1.0, 20.0)], end_reason=None)
    write_log(tmp_path / 'budget.jsonl', [(1000, 1.0, 20.0)], end_reason='env_step_budget')
    runs = {1000: aggregate.read_log(tmp_path / 'killed.jsonl'), 1001: aggregate.read_log(tmp_path / 'budget.jsonl')}
    assert aggregate.summarize_threshold(runs, 195)['wall_capped'] == {'1000': 1000}


def test_each_run_records_the_share_of_its_time_spent_evaluating(tmp_path):
    write_log(tmp_path / 'run.jsonl', [(1000, 1.0, 20.0)], end_reason='env_step_budget')
    summary = aggregate.summarize_runs({1000: aggregate.read_log(tmp_path / 'run.jsonl')})
    assert (summary['1000']['wall_s'], summary['1000']['eval_s']) == (1.0, 0.25)
