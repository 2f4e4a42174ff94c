"""The pure-python parts of benchmarks/compare/: the protocol evaluator's schedule and stop
rules, log aggregation (first reach, median over seeds), the markdown table, the venv install
commands and the SB3 schedule rescaling. No peer framework is needed."""
import json
import os
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

COMPARE = Path(__file__).resolve().parents[2] / 'benchmarks' / 'compare'
sys.path += [str(COMPARE), str(COMPARE / 'runners')]  # appended: never shadows another test's modules

import aggregate  # noqa: E402
import protocol  # noqa: E402
import report_table  # noqa: E402
import run as compare_run  # noqa: E402
import sb3_runner  # noqa: E402
import venvs  # noqa: E402
from benchmark_specs import BENCHMARKS, get_spec  # noqa: E402


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def make_evaluator(tmp_path, bench='dqn_cartpole_v1', max_env_steps=None, max_wall_s=None, clock=None):
    args = protocol.parse_runner_args(['--benchmark', bench, '--seed', '1', '--out', str(tmp_path / 'log.jsonl')] +
                                      (['--max-env-steps', str(max_env_steps)] if max_env_steps else []) +
                                      (['--max-wall-s', str(max_wall_s)] if max_wall_s else []))
    return protocol.ProtocolEvaluator(args, 'fake', {'versions': {'fake': '1.0'}}, clock=clock or FakeClock())


def records(tmp_path):
    return [json.loads(line) for line in (tmp_path / 'log.jsonl').read_text().splitlines()]


def reference_return(seed, i, action=0):
    """CartPole return of a constant-action policy from the protocol's reset seed, played by hand."""
    env = gym.make('CartPole-v1')
    env.reset(seed=protocol.EVAL_SEED_BASE + 1000 * seed + i)
    total, done = 0.0, False
    while not done:
        _, r, term, trunc, _ = env.step(action)
        total, done = total + r, term or trunc
    return total


def test_runner_args_default_to_the_benchmark_budget_and_cap(tmp_path):
    args = protocol.parse_runner_args(['--benchmark', 'ppo_cartpole_v1', '--seed', '2', '--out', 'x'])
    assert (args.max_env_steps, args.max_wall_s, args.torch_threads) == (200_000, 900.0, 1)
    with pytest.raises(KeyError, match='unknown benchmark'):
        protocol.parse_runner_args(['--benchmark', 'dqn_pong', '--seed', '0', '--out', 'x'])


def test_evaluation_plays_ten_seeded_episodes_and_logs_one_line(tmp_path):
    clock = FakeClock()
    ev = make_evaluator(tmp_path, clock=clock)
    ev.start()
    clock.now += 2.5
    mean = ev.evaluate(1000, lambda obs: 0)
    ev.finish(1000)
    expected = [reference_return(1, i) for i in range(10)]
    start, evaluation, end = records(tmp_path)
    assert start['event'] == 'start' and start['framework'] == 'fake' and start['seed'] == 1
    assert start['versions']['fake'] == '1.0' and start['versions']['gymnasium'] == gym.__version__
    assert evaluation['returns'] == expected
    assert mean == pytest.approx(sum(expected) / 10) and evaluation['mean_return'] == mean
    assert (evaluation['env_steps'], evaluation['wall_s'], evaluation['eval_s']) == (1000, 2.5, 0.0)
    assert end == {'event': 'end', 'reason': 'framework_stopped', 'env_steps': 1000, 'wall_s': 2.5,
                   'eval_s': 0.0, 'best_return': mean}


def test_evaluations_fall_on_each_1000_step_boundary_crossed(tmp_path):
    ev = make_evaluator(tmp_path)
    ev.start()
    for steps in (256, 999, 1000, 1500, 2300, 2999, 5120):
        ev.step(steps, lambda obs: 1)
    assert [r['env_steps'] for r in records(tmp_path)[1:]] == [1000, 2300, 5120]


def test_stops_on_threshold_then_budget_then_wall_cap(tmp_path):
    ev = make_evaluator(tmp_path, bench='dqn_cartpole_v1')
    ev.start()
    ev.best_return = 475.0  # the hardest threshold of the benchmark
    assert ev.step(10, lambda obs: 0) and ev.end_reason == 'threshold'

    ev = make_evaluator(tmp_path, max_env_steps=3000)
    ev.start()
    assert not ev.step(2999, lambda obs: 0)
    assert ev.step(3000, lambda obs: 0) and ev.end_reason == 'env_step_budget'

    clock = FakeClock()
    ev = make_evaluator(tmp_path, max_wall_s=60, clock=clock)
    ev.start()
    clock.now += 59.9
    assert not ev.step(10, lambda obs: 0)
    clock.now += 0.1
    assert ev.step(20, lambda obs: 0) and ev.end_reason == 'wall_cap'


def test_step_before_start_is_an_error(tmp_path):
    with pytest.raises(RuntimeError, match='start'):
        make_evaluator(tmp_path).step(1000, lambda obs: 0)


def write_log(path, evals, end=True, torn=False):
    lines = [json.dumps({'event': 'start', 'versions': {'x': '1'}})]
    lines += [json.dumps({'event': 'eval', 'env_steps': s, 'wall_s': w, 'mean_return': r}) for s, w, r in evals]
    if end:
        lines.append(json.dumps({'event': 'end', 'reason': 'threshold', 'env_steps': evals[-1][0],
                                 'wall_s': evals[-1][1]}))
    text = '\n'.join(lines) + '\n' + ('{"event": "ev' if torn else '')
    path.write_text(text)
    return aggregate.read_log(path)


def test_read_log_skips_a_torn_last_line_and_reports_a_missing_end(tmp_path):
    run = write_log(tmp_path / 'a.jsonl', [(1000, 1.0, 20.0), (2000, 2.0, 200.0)], end=False, torn=True)
    assert [e['env_steps'] for e in run['evals']] == [1000, 2000]
    assert run['end'] is None and run['start']['versions'] == {'x': '1'}
    assert aggregate.read_log(tmp_path / 'missing.jsonl') == {'start': None, 'evals': [], 'end': None}


def test_first_reach_is_the_first_evaluation_at_or_above_the_threshold():
    evals = [{'env_steps': 1000, 'wall_s': 1.5, 'mean_return': 150.0},
             {'env_steps': 2000, 'wall_s': 3.0, 'mean_return': 195.0},
             {'env_steps': 3000, 'wall_s': 4.5, 'mean_return': 100.0},
             {'env_steps': 4000, 'wall_s': 6.0, 'mean_return': 500.0}]
    assert aggregate.first_reach(evals, 195) == {'wall_s': 3.0, 'env_steps': 2000}
    assert aggregate.first_reach(evals, 475) == {'wall_s': 6.0, 'env_steps': 4000}
    assert aggregate.first_reach(evals, 501) is None


def test_median_over_seeds_counts_unreached_seeds_as_infinite(tmp_path):
    runs = {
        0: write_log(tmp_path / '0.jsonl', [(1000, 2.0, 100.0), (2000, 4.0, 480.0)]),
        1: write_log(tmp_path / '1.jsonl', [(1000, 3.0, 490.0)]),
        2: write_log(tmp_path / '2.jsonl', [(1000, 1.0, 10.0), (2000, 2.0, 20.0)]),
    }
    s = aggregate.summarize_threshold(runs, 475)
    assert (s['reached'], s['seeds'], s['median_wall_s'], s['median_env_steps']) == (2, 3, 4.0, 2000)
    assert s['per_seed'] == {'0': {'wall_s': 4.0, 'env_steps': 2000}, '1': {'wall_s': 3.0, 'env_steps': 1000},
                             '2': None}
    del runs[1]
    s = aggregate.summarize_threshold(runs, 475)
    assert (s['reached'], s['median_wall_s'], s['median_env_steps']) == (1, None, None)


def test_run_summary_and_speed_ratio(tmp_path):
    runs = {0: write_log(tmp_path / '0.jsonl', [(1000, 2.0, 100.0), (2000, 4.0, 480.0)])}
    runs[0]['returncode'] = 0
    summary = aggregate.summarize_runs(runs)
    assert summary['0'] == {'end_reason': 'threshold', 'returncode': 0, 'env_steps': 2000, 'wall_s': 4.0,
                            'eval_s': None, 'best_return': 480.0, 'n_evals': 2}
    bench = {name: {'thresholds': [{'median_wall_s': w}]} for name, w in
             (('ours', 3.0), ('sb3', 12.0), ('tianshou', 6.0))}
    assert aggregate.speed_ratio(bench, 0) == 0.5
    bench['ours']['thresholds'][0]['median_wall_s'] = None
    assert aggregate.speed_ratio(bench, 0) is None


def test_steps_and_cells_format_like_the_bars_table():
    assert [report_table.format_steps(s) for s in (640, 2000, 11264, 100_000)] == ['640', '2k', '11.3k', '100k']
    cell = {'reached': 3, 'seeds': 3, 'median_wall_s': 2.61, 'median_env_steps': 2000}
    assert report_table.format_cell(cell, 100_000) == '2.6 s / 2k (3/3)'
    cell.update(reached=1, median_wall_s=None, median_env_steps=None)
    assert report_table.format_cell(cell, 100_000) == 'not reached in 100k env steps (1/3)'
    assert report_table.format_cell(None, 100_000) == 'not run'


def test_markdown_table_has_one_row_per_threshold(tmp_path):
    def fw(walls):
        return {'info': {'versions': {'pkg': '1.2'}},
                'thresholds': [{'reached': 3, 'seeds': 3, 'median_wall_s': w, 'median_env_steps': 2000}
                               for w in walls]}
    results = {'generated_at': 'T', 'quick': False, 'seeds': [0, 1, 2], 'frameworks': ['ours', 'sb3'],
               'benchmarks': {'dqn_cartpole_v1': {'algo': 'dqn', 'env_id': 'CartPole-v1', 'thresholds': [195, 475],
                                                  'env_step_budget': 100_000,
                                                  'frameworks': {'ours': fw([1.0, 9.0]), 'sb3': fw([2.0, 36.0])}}}}
    md = report_table.render_markdown(results).splitlines()
    assert '| benchmark | threshold | ding (ours) | Stable-Baselines3 | ours / fastest peer |' in md
    assert '| DQN CartPole-v1 | 195 | 1.0 s / 2k (3/3) | 2.0 s / 2k (3/3) | 0.50x |' in md
    assert '| DQN CartPole-v1 | 475 | 9.0 s / 2k (3/3) | 36.0 s / 2k (3/3) | 0.25x |' in md
    assert '- Stable-Baselines3: pkg 1.2' in md


def test_our_async_column_is_not_a_peer_and_gets_its_own_ratio(tmp_path):
    def fw(wall):
        return {'info': {}, 'thresholds': [{'reached': 3, 'seeds': 3, 'median_wall_s': wall, 'median_env_steps': 2000}]}
    per_fw = {'ours': fw(4.0), 'ours_async': fw(1.0), 'sb3': fw(8.0)}
    assert aggregate.speed_ratio(per_fw, 0) == 0.5  # against SB3, not against our async run
    assert aggregate.async_ratio(per_fw, 0) == 0.25
    results = {'generated_at': 'T', 'quick': False, 'seeds': [0, 1, 2], 'frameworks': ['ours', 'ours_async', 'sb3'],
               'benchmarks': {'dqn_cartpole_v1': {'algo': 'dqn', 'env_id': 'CartPole-v1', 'thresholds': [195],
                                                  'env_step_budget': 100_000, 'frameworks': per_fw}}}
    md = report_table.render_markdown(results).splitlines()
    assert ('| DQN CartPole-v1 | 195 | 4.0 s / 2k (3/3) | 1.0 s / 2k (3/3) | 8.0 s / 2k (3/3) | 0.50x | 0.25x |'
            in md)


def test_our_peer_network_column_is_not_a_peer_and_gets_its_own_ratio():
    def fw(wall):
        return {'info': {}, 'thresholds': [{'reached': 3, 'seeds': 3, 'median_wall_s': wall, 'median_env_steps': 2000}]}
    per_fw = {'ours': fw(2.0), 'ours_peer_net': fw(3.0), 'sb3': fw(4.0), 'tianshou': fw(3.0)}
    assert aggregate.speed_ratio(per_fw, 0) == 2 / 3  # the fastest peer, never our other column
    assert aggregate.speed_ratio(per_fw, 0, 'ours_peer_net', ('sb3', )) == 0.75
    bench = {'algo': 'ppo', 'env_id': 'CartPole-v1', 'thresholds': [475], 'env_step_budget': 100_000,
             'frameworks': per_fw}
    same_net = dict(bench, algo='dqn', frameworks={'ours': fw(2.0), 'sb3': fw(4.0), 'tianshou': fw(3.0)})
    results = {'generated_at': 'T', 'quick': False, 'seeds': [0, 1, 2],
               'frameworks': ['ours', 'ours_peer_net', 'sb3', 'tianshou'],
               'benchmarks': {'ppo_cartpole_v1': bench, 'dqn_cartpole_v1': same_net}}  # DQN: no peer-net run
    md = report_table.render_markdown(results).splitlines()
    cells = '| 2.0 s / 2k (3/3) | 3.0 s / 2k (3/3) | 4.0 s / 2k (3/3) | 3.0 s / 2k (3/3) |'
    assert f'| PPO CartPole-v1 | 475 {cells} 0.67x | 0.75x |' in md  # the peer-net ratio is against SB3
    assert ("| DQN CartPole-v1 | 475 | 2.0 s / 2k (3/3) | = ours (SB3's sizes) | 4.0 s / 2k (3/3) | 3.0 s / 2k (3/3) "
            "| 0.67x | 0.50x |") in md
    summary = report_table.summary_markdown(results)
    assert "| PPO CartPole-v1 to 475 | 2.0 s (3/3) | 3.0 s (3/3) | 4.0 s (3/3) | 3.0 s (3/3) | 0.67x | 0.75x |" in summary


def test_our_peer_network_column_runs_where_our_network_differs(tmp_path):
    assert compare_run.frameworks_of(BENCHMARKS['ppo_cartpole_v1'], ['ours', 'ours_peer_net']) == \
        ['ours', 'ours_peer_net']
    assert compare_run.frameworks_of(BENCHMARKS['dqn_cartpole_v1'], ['ours', 'ours_peer_net']) == ['ours']
    assert compare_run.runner_of('ours_peer_net') == 'ours'


def test_our_async_column_runs_our_runner_with_async_mode(tmp_path):
    cmd = compare_run.runner_command('py', 'ours_async', 'dqn_cartpole_v1', 0, tmp_path / 'o.jsonl', 1000, 10.0, 1,
                             ['--async-mode'])
    assert cmd[1].endswith('ours_runner.py') and cmd[-1] == '--async-mode'
    spec = BENCHMARKS["dqn_cartpole_v1"]
    assert compare_run.frameworks_of(spec, ['ours', 'ours_async', 'sb3']) == ['ours', 'ours_async', 'sb3']
    assert compare_run.runner_env('ours_async').get('PYTHONPATH') == os.environ.get('PYTHONPATH')


def test_venv_installs_pin_torch_first_and_again_with_the_peer():
    cmds = venvs.install_commands(Path('/v/bin/python'), 'sb3')
    assert cmds[0][-1] == 'torch==2.13.0' and cmds[0][:4] == ['/v/bin/python', '-m', 'pip', 'install']
    assert 'torch==2.13.0' in cmds[1] and 'stable-baselines3==2.*' in cmds[1]
    assert 'tianshou==2.0.1' in venvs.install_commands(Path('/v/bin/python'), 'tianshou')[1]
    with pytest.raises(KeyError, match='unknown peer'):
        venvs.install_commands(Path('/v/bin/python'), 'rllib')


def test_di_engine_goes_in_with_its_own_pins_but_setuptools():
    # DI-engine 0.5.3 pins setuptools<=66.1.1, torch 2.13 needs >=77: its requirements first, then it alone
    cmds = venvs.install_commands(Path('/v/bin/python'), 'di_engine')
    assert cmds[0][-1] == venvs.TORCH_PIN and venvs.TORCH_PIN in cmds[1]
    assert {'gym==0.25.1', 'numpy<2,>=1.18.0'} <= set(cmds[1]) and not any('setuptools' in c for c in cmds[1])
    assert cmds[2][-2:] == ['--no-deps', 'DI-engine==0.5.3']


def test_a_peer_venv_is_filled_again_when_its_package_list_changed(tmp_path, monkeypatch):
    ran = []

    def fake_run(cmd, check, env=None):
        ran.append(cmd)
        if cmd[1:3] == ['-m', 'venv']:
            venvs.venv_python(tmp_path, 'sb3').parent.mkdir(parents=True)
            venvs.venv_python(tmp_path, 'sb3').touch()

    monkeypatch.setattr(venvs.subprocess, 'run', fake_run)
    venvs.ensure_venv(tmp_path, 'sb3', log=lambda line: None)
    assert len(ran) == 3 and 'sb3-contrib==2.*' in ran[2] and 'minatar>=1.0.15' in ran[2]  # MinAtar peers
    venvs.ensure_venv(tmp_path, 'sb3', log=lambda line: None)
    assert len(ran) == 3  # ready: nothing to do
    monkeypatch.setitem(venvs.PEER_PACKAGES, 'sb3', venvs.PEER_PACKAGES['sb3'] + ['extra-package'])
    venvs.ensure_venv(tmp_path, 'sb3', log=lambda line: None)
    assert len(ran) == 5 and 'extra-package' in ran[4]  # the same venv, filled again


def test_quick_mode_shrinks_budget_and_cap_and_defaults_to_the_first_reporting_seed():
    spec = get_spec('sac_pendulum')
    assert compare_run.budget_and_cap(spec, quick=False) == (20_000, spec.wall_cap_s)
    assert compare_run.budget_and_cap(spec, quick=True) == (2000, 180.0)
    assert compare_run.parse_args(['--quick']).seeds == [1000]
    assert compare_run.parse_args([]).seeds == [1000, 1001, 1002]
    cmd = compare_run.runner_command('py', 'sb3', 'sac_pendulum', 1, Path('o.jsonl'), 2000, 180.0, 1)
    assert cmd[1].endswith('runners/sb3_runner.py') and cmd[2:] == [
        '--benchmark', 'sac_pendulum', '--seed', '1', '--out', 'o.jsonl', '--max-env-steps', '2000',
        '--max-wall-s', '180.0', '--torch-threads', '1']


def test_aggregate_only_rebuilds_tables_from_logs(tmp_path):
    logs = tmp_path / 'logs' / 'full' / 'dqn_cartpole_v1'
    logs.mkdir(parents=True)
    for seed, reach_wall in ((1000, 5.0), (1001, 7.0), (1002, 6.0)):
        write_log(logs / f'sb3_seed{seed}.jsonl', [(1000, reach_wall / 2, 300.0), (2000, reach_wall, 500.0)])
    compare_run.main(['--aggregate-only', '--benchmarks', 'dqn_cartpole_v1', '--frameworks', 'sb3',
                      '--logs-dir', str(tmp_path / 'logs'), '--results-dir', str(tmp_path / 'results')])
    results = json.loads((tmp_path / 'results' / 'compare.json').read_text())
    thresholds = results['benchmarks']['dqn_cartpole_v1']['frameworks']['sb3']['thresholds']
    assert [(t['threshold'], t['median_wall_s'], t['median_env_steps']) for t in thresholds] == [
        (195.0, 3.0, 1000), (475.0, 6.0, 2000)]
    assert '| DQN CartPole-v1 | 475 | 6.0 s / 2k (3/3) | - |' in (tmp_path / 'results' / 'compare.md').read_text()


def test_a_whole_budget_benchmark_reports_final_best_wall_speed_and_curves(tmp_path):
    logs = tmp_path / 'logs' / 'full' / 'ppo_hopper'
    logs.mkdir(parents=True)
    # ours: final 900 / 1100 / 1000 (median 1000), 100 s each; sb3: final 1500, 200 s each
    for seed, final in ((1000, 900.0), (1001, 1100.0), (1002, 1000.0)):
        write_log(logs / f'ours_seed{seed}.jsonl', [(25_088, 50.0, 300.0), (50_176, 100.0, final)])
        write_log(logs / f'sb3_seed{seed}.jsonl', [(25_000, 100.0, 1200.0 + seed - 1000), (50_000, 200.0, 1500.0)])
    compare_run.main(['--aggregate-only', '--benchmarks', 'ppo_hopper', '--frameworks', 'ours', 'sb3',
                      '--logs-dir', str(tmp_path / 'logs'), '--results-dir', str(tmp_path / 'results'),
                      '--results-name', 'mujoco'])
    ours = json.loads((tmp_path / 'results' / 'mujoco.json').read_text())['benchmarks']['ppo_hopper']['frameworks']
    budget = ours['ours']['budget']
    assert (budget['median_final_return'], budget['median_best_return'], budget['median_wall_s']) == (
        1000.0, 1000.0, 100.0)
    assert budget['median_env_steps_per_s'] == pytest.approx(501.76)
    assert ours['sb3']['budget']['median_curve'] == [[25_000, 1201.0], [50_000, 1500.0]]
    table = (tmp_path / 'results' / 'mujoco.md').read_text()
    assert '| ding (ours) | 1,000 | 1,000 | 100 | 502 | 0.50x |' in table
    assert '| Stable-Baselines3 | 1,500 | 1,500 | 200 | 250 | - |' in table
    assert '## PPO, RL Zoo Hopper values Hopper-v5: 500k env steps for every run' in table
    assert '| 25k | 300 | 1,201 |' in table and '| 50k | 1,000 | 1,500 |' in table


def test_zoo_linear_schedule_keeps_the_zoo_per_step_values_under_a_longer_budget():
    lin = sb3_runner.ZooLinear(1e-3, zoo_steps=100_000, budget=200_000)
    # progress_remaining 1 - t / budget: t=0 -> 1e-3, t=50k -> 5e-4, t>=100k -> 0
    assert [lin(p) for p in (1.0, 0.75, 0.5, 0.0)] == pytest.approx([1e-3, 5e-4, 0.0, 0.0])


def test_every_benchmark_stops_at_its_hardest_threshold():
    assert {n: b.stop_return for n, b in BENCHMARKS.items()} == {
        'dqn_cartpole_v1': 475.0, 'ppo_cartpole_v1': 475.0, 'sac_pendulum': -200.0,
        'dqn_minatar_breakout': 10.0, 'qrdqn_minatar_breakout': 10.0, 'dqn_minatar_breakout_tuned': 10.0,
        'qrdqn_minatar_breakout_tuned': 10.0, 'ppo_hopper': 2000.0, 'sac_halfcheetah': 5000.0, 'sac_hopper': 2500.0,
        'td3_halfcheetah': 5000.0, 'td3_hopper': 2500.0}


def test_minatar_benchmarks_evaluate_every_5000_steps_and_only_run_ours_and_sb3(tmp_path):
    ev = make_evaluator(tmp_path, bench='dqn_minatar_breakout')
    ev.start()
    for steps in (1000, 4999, 5000, 9000, 10_016):
        ev.step(steps, lambda obs: 0)
    ev.finish(10_016)
    evals = [r for r in records(tmp_path) if r['event'] == 'eval']
    assert [r['env_steps'] for r in evals] == [5000, 10_016] and len(evals[0]['returns']) == 10
    spec = get_spec('qrdqn_minatar_breakout')
    assert compare_run.frameworks_of(spec, ['ours', 'sb3', 'tianshou']) == ['ours', 'sb3']
    # the default table is the CartPole / Pendulum one; MinAtar runs when named
    assert compare_run.parse_args([]).benchmarks == ['dqn_cartpole_v1', 'ppo_cartpole_v1', 'sac_pendulum']


def test_ours_sees_the_plain_minatar_grid_channels_first():
    import ours_runner
    from easydict import EasyDict
    obs = np.zeros((10, 10, 4), dtype=bool)
    obs[2, 3, 1] = True
    moved = ours_runner.obs_mapper(EasyDict(env={'type': 'minatar'}))(obs)
    assert moved.shape == (4, 10, 10) and moved.dtype == np.float32 and moved[1, 2, 3] == 1 and moved.sum() == 1
    assert ours_runner.obs_mapper(EasyDict(env={'type': 'cartpole'}))([1.0, 2.0]).tolist() == [1.0, 2.0]


def test_ours_maps_scaled_actions_back_to_the_plain_env_bounds():
    import ours_runner
    from easydict import EasyDict
    to_env = ours_runner.env_action_mapper(EasyDict(env={'act_scale': True}), 'Pendulum-v1')
    assert to_env(np.array([-1.0])).tolist() == [-2.0]
    assert to_env(np.array([0.5])).tolist() == [1.0]
    same = ours_runner.env_action_mapper(EasyDict(env={}), 'CartPole-v1')
    assert same(1) == 1


def test_ours_run_info_is_made_json_safe():
    import ours_runner
    info = ours_runner._jsonable({'a': (1, 2.5), 'b': float('inf'), 'c': {3: np.float32(0.5)}, 'd': None})
    assert info == {'a': [1, 2.5], 'b': 'inf', 'c': {'3': '0.5'}, 'd': None}
    json.dumps(info)


def test_a_peer_stopped_by_its_wall_cap_is_reported_as_such():
    unreached = {'reached': 0, 'seeds': 1, 'median_wall_s': None, 'median_env_steps': None,
                 'wall_capped': {'0': 33488}}
    assert report_table.format_cell(unreached, 500_000) == 'not reached in 33.5k env steps (wall cap) (0/1)'
    unreached['wall_capped'] = {}  # stopped by its env-step budget: a result
    assert report_table.format_cell(unreached, 500_000) == 'not reached in 500k env steps (0/1)'


def test_ours_evaluates_hopper_on_the_collector_envs_current_observation_statistics():
    pytest.importorskip('mujoco')
    import ours_runner
    from ding.envs.env_wrappers.norm_sync import stats_wrappers
    from ding.envs.env_wrappers.norm_wrappers import ObsNormWrapper
    cfg = ours_runner.load_config('dizoo.mujoco.config.hopper_ppo_config', 'Hopper-v5', 1000, 'unused')
    env = ours_runner.make_collector_env(cfg)
    to_obs = ours_runner.obs_mapper(cfg, env)
    env.launch()
    try:
        for _ in range(50):
            env.step_batch(np.zeros((1, 3), np.float32))
        rms = next(w for w in stats_wrappers(env._envs[0]) if isinstance(w, ObsNormWrapper)).rms
        raw = np.linspace(-1.0, 1.0, 11)
        count = rms.count
        assert np.allclose(to_obs(raw), np.clip((raw - rms.mean) / rms.std, -10, 10), atol=1e-5)
        assert rms.count == count  # reading the statistics never moves them
    finally:
        env.close()


def test_update_replaces_one_benchmark_and_keeps_the_others_with_their_sitting(tmp_path, monkeypatch):
    for bench in ('dqn_cartpole_v1', 'ppo_cartpole_v1'):
        logs = tmp_path / 'logs' / 'full' / bench
        logs.mkdir(parents=True)
        for seed in (1000, 1001, 1002):
            write_log(logs / f'sb3_seed{seed}.jsonl', [(1000, 2.0, 500.0)])
    common = ['--frameworks', 'sb3', '--logs-dir', str(tmp_path / 'logs'), '--results-dir', str(tmp_path / 'results')]
    compare_run.main(['--aggregate-only', '--benchmarks', 'dqn_cartpole_v1', 'ppo_cartpole_v1'] + common)
    path = tmp_path / 'results' / 'compare.json'
    first = json.loads(path.read_text())
    first['benchmarks']['dqn_cartpole_v1']['sitting'] = '2026-01-01T00:00:00+00:00'  # an older sitting
    path.write_text(json.dumps(first))
    write_log(tmp_path / 'logs' / 'full' / 'ppo_cartpole_v1' / 'sb3_seed1000.jsonl', [(1000, 9.0, 500.0)])
    compare_run.main(['--aggregate-only', '--update', '--benchmarks', 'ppo_cartpole_v1'] + common)
    merged = json.loads(path.read_text())
    assert list(merged['benchmarks']) == ['dqn_cartpole_v1', 'ppo_cartpole_v1']
    assert merged['benchmarks']['dqn_cartpole_v1'] == first['benchmarks']['dqn_cartpole_v1']
    ppo = merged['benchmarks']['ppo_cartpole_v1']
    assert ppo['sitting'] == merged['generated_at'] != '2026-01-01T00:00:00+00:00'
    assert ppo['frameworks']['sb3']['thresholds'][0]['per_seed']['1000']['wall_s'] == 9.0  # the new log
    assert '--benchmarks dqn_cartpole_v1 ppo_cartpole_v1' in merged['command'] and '--update' not in merged['command']
    md = (tmp_path / 'results' / 'compare.md').read_text()
    assert 'separate sittings' in md and 'DQN CartPole-v1 2026-01-01T00:00:00+00:00' in md
    # other seeds than the table's are refused, before anything runs: the rows would no longer
    # compare the same runs
    ran = []
    monkeypatch.setattr(compare_run, 'run_all', lambda *a: ran.append(a))
    with pytest.raises(SystemExit, match='seeds'):
        compare_run.main(['--update', '--benchmarks', 'ppo_cartpole_v1', '--seeds', '1000'] + common)
    assert ran == []
