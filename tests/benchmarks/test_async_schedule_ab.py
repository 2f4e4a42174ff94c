"""benchmarks/async_schedule_ab.py: sync and the async schedules run the same SAC work, paired."""
import json
import sys

import torch

from benchmarks import async_schedule_ab


def test_each_setting_runs_the_same_steps_and_the_ratios_are_written(tmp_path, monkeypatch):
    out = tmp_path / 'ab.json'
    threads = torch.get_num_threads()
    monkeypatch.setattr(sys, 'argv', ['ab', '--env-steps', '1050', '--rounds', '1', '--schedules', 'inline', 'auto',
                                      '--out', str(out)])
    try:
        async_schedule_ab.main()
    finally:
        torch.set_num_threads(threads)
    result = json.loads(out.read_text())
    assert result['rounds_done'] == 1 and set(result['median_ratio_to_sync']) == {'inline', 'auto'}
    assert set(result['cpu_ratio_to_sync']) == {'inline', 'auto'}
    assert result['ratio_to_sync']['auto']['interval_95'] == []  # one round gives no interval
    runs = result['runs']
    assert runs['sync'][0]['schedule'] is None and all(r[0]['seconds'] > 0 for r in runs.values())
    assert all(r[0]['cpu_seconds'] > 0 for r in runs.values())
    inline, auto = runs['inline'][0]['schedule'], runs['auto'][0]['schedule']
    assert inline['overlapped_steps'] == 0 and auto['schedule'] == 'auto'
    # one random-collect step, then one env step and one update per step, the checker first (the
    # step that finds 1,050 env steps still runs): the same steps each way
    assert inline['inline_steps'] == auto['inline_steps'] + auto['overlapped_steps'] == 52


def test_the_median_interval_takes_the_binomial_order_statistics():
    # n=10: P(Binomial(10, 1/2) <= 1) = 11/1024 <= 2.5% < P(<= 2) = 56/1024, so ranks 2 and 9
    assert async_schedule_ab.median_interval([10 - i for i in range(10)]) == [2, 9]
    # n=20: ranks 6 and 15
    assert async_schedule_ab.median_interval(list(range(1, 21))) == [6, 15]
    assert async_schedule_ab.median_interval([1.0, 2.0, 3.0, 4.0, 5.0]) == []  # 2/32 > 5%: too few


def test_an_on_policy_pipeline_runs_inline_and_one_setting_prints_its_result(tmp_path, monkeypatch, capsys):
    threads = torch.get_num_threads()
    out = tmp_path / 'ab.json'
    monkeypatch.setattr(sys, 'argv', ['ab', '--algo', 'ppo', '--env-steps', '600', '--rounds', '1', '--schedules', 'auto',
                                      '--out', str(out)])
    try:
        async_schedule_ab.main()
        monkeypatch.setattr(sys, 'argv', ['ab', '--algo', 'dqn', '--env-steps', '300', '--one', 'inline'])
        capsys.readouterr()
        async_schedule_ab.main()
    finally:
        torch.set_num_threads(threads)
    ppo = json.loads(out.read_text())
    assert ppo['algo'] == 'ppo' and ppo['config'].endswith('cartpole_ppo_config')
    auto = ppo['runs']['auto'][0]['schedule']
    assert auto['schedule'] == 'inline' and auto['overlapped_steps'] == 0  # its learner is last and on-policy
    one = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert one['schedule']['schedule'] == 'inline' and one['schedule']['inline_steps'] > 0
