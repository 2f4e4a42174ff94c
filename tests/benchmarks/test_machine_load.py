"""benchmarks/machine_load.py: the machine figures every speed ratio is reported beside."""
import multiprocessing
import sys
from pathlib import Path

import gymnasium as gym

# appended, not prepended: benchmarks/throughput/distributed.py must not shadow the tests' `distributed`
# package for the Ray workers of later tests (they get this process's sys.path)
sys.path.append(str(Path(__file__).resolve().parents[2] / 'benchmarks'))

from machine_load import CpuTimes, IndependentProcs  # noqa: E402


def make_cartpole():
    return gym.make('CartPole-v1')


def test_cpu_fractions_split_all_cpu_time(monkeypatch):
    import machine_load
    # user nice system idle iowait irq softirq steal: 100 busy, 60 idle+iowait, 40 stolen
    readings = iter([[0] * 8, [50, 10, 30, 50, 10, 5, 5, 40]])
    monkeypatch.setattr(machine_load, '_proc_stat', lambda: next(readings))
    with CpuTimes() as c:
        pass
    assert c.fractions == {'busy': 0.5, 'idle': 0.3, 'steal': 0.2}


def test_independent_procs_report_a_rate_and_leave_no_child():
    runner = IndependentProcs(make_cartpole, env_num=3, procs=2)
    try:
        assert len(runner.pids) == 2
        assert runner.run(50) > 0
    finally:
        runner.close()
    assert not [p for p in multiprocessing.active_children() if p.pid in runner.pids]
