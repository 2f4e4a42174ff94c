"""async_mode's choice between overlapped and inline steps (overlap_schedule.py)."""
import itertools
import sys
import threading
import time
from typing import Optional

import pytest

from ding.framework import OnlineRLContext, task
from ding.framework.contract import contract
from ding.framework.overlap_schedule import OverlapSchedule


class FakeClock:

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def drive(schedule: OverlapSchedule, clock: FakeClock, steps: int, cost: dict,
          cpu_share: Optional[float] = None) -> list:
    """Feed `steps` steps one at a time, each completing after cost[overlap] seconds; an inline
    step keeps the feeding thread busy for `cpu_share` of that (None: not measured)."""
    modes = []
    for _ in range(steps):
        assert not schedule.wants_drain()  # nothing is in flight here
        overlap = schedule.next_overlaps()
        schedule.step_fed()
        clock.now += cost[overlap]
        if not overlap:
            schedule.inline_step_timed(cpu_share)
        schedule.step_completed()
        modes.append(overlap)
    return modes


@pytest.mark.parametrize('faster', [True, False])
def test_auto_keeps_the_faster_schedule_and_probes_the_other(faster):
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=32, clock=clock)
    cost = {faster: 0.010, not faster: 0.011}  # 10% apart: probes run to their end
    modes = drive(schedule, clock, 4 + 4 + 32 + 4 + 32, cost)
    assert modes[:8] == [False] * 4 + [True] * 4  # both probed, inline first
    assert modes[8:40] == [faster] * 32  # then the faster exploited
    assert modes[40:44] == [not faster] * 4  # the other probed again
    assert modes[44:] == [faster] * 32
    summary = schedule.summary()
    assert summary['ms_per_step'] == {'overlap': pytest.approx(cost[True] * 1e3), 'inline': pytest.approx(
        cost[False] * 1e3)}
    assert summary['overlapped_steps'] + summary['inline_steps'] == len(modes)


def test_auto_switches_when_the_costs_change():
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=8, clock=clock)
    assert drive(schedule, clock, 16, {True: 0.01, False: 0.011})[8:] == [True] * 8
    later = drive(schedule, clock, 4 + 16 + 4 + 16, {True: 0.012, False: 0.011})  # overlap got dearer
    # the inline probe alone does not flip it (overlap's cost is from before) and doubles the
    # next exploit segment; that one measures the new cost, and inline is kept from then on
    assert later == [False] * 4 + [True] * 16 + [True] * 4 + [False] * 16


def test_a_confirmed_choice_is_probed_ever_more_rarely():
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=8, clock=clock)
    modes = drive(schedule, clock, 600, {True: 0.011, False: 0.010})
    runs = [len(list(g)) for _, g in itertools.groupby(modes)]  # probe inline, probe overlap, exploit, probe, ...
    exploits = runs[2::2]
    assert exploits[:5] == [8, 16, 32, 64, 64]
    assert all(r == 4 for r in runs[1::2])


def test_a_tie_goes_inline_and_an_evaluation_step_does_not_decide():
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=5, exploit_steps=8, margin=0.03, clock=clock)
    modes = []
    for i in range(5 + 5 + 8):
        overlap = schedule.next_overlaps()
        schedule.step_fed()
        slow_eval = overlap is False and i == 2  # one long step in the inline probe: the median ignores it
        clock.now += 0.5 if slow_eval else (0.0101 if overlap else 0.0100)
        schedule.step_completed()
        modes.append(overlap)
    assert modes[10:] == [False] * 8


def test_a_probe_clearly_slower_after_two_steps_ends_there():
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=8, clock=clock)
    expected = [(False, 4), (True, 2), (False, 8), (True, 2), (False, 16)]  # overlap probes end after 2 steps
    modes = drive(schedule, clock, sum(n for _, n in expected), {True: 0.020, False: 0.010})
    assert [(overlap, len(list(g))) for overlap, g in itertools.groupby(modes)] == expected


def test_the_runs_first_step_does_not_count_against_inline():
    """Its one-time costs (lazy imports in a fresh venv: seen making a 2-step inline probe look
    1.25x dearer than overlap) belong to neither schedule."""
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=8, clock=clock)
    assert drive(schedule, clock, 1, {False: 0.100}, cpu_share=0.2)[0] is False
    modes = [False] + drive(schedule, clock, 40, {True: 0.010, False: 0.010}, cpu_share=0.2)
    runs = [(overlap, len(list(g))) for overlap, g in itertools.groupby(modes)]
    assert schedule.summary()['ms_per_step']['inline'] == pytest.approx(10.0)
    assert runs[0][0] is False and runs[1][0] is True and runs[2] == (False, 8)  # a tie goes inline


def test_a_stall_in_a_two_step_first_probe_does_not_count_against_inline():
    """Steps that wait end the first inline probe after 2 steps. If the second stalls (a core taken
    by another process), the first step's cost, one-time costs and all, is the better estimate.
    Counting the stall failed test_stages_that_cannot_run_at_once_are_run_inline 9 times in 15
    with two CPU-bound processes beside it."""
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=8, clock=clock)
    drive(schedule, clock, 1, {False: 0.0101}, cpu_share=0.2)
    drive(schedule, clock, 1, {False: 0.0135}, cpu_share=0.2)  # the stall
    assert drive(schedule, clock, 4, {True: 0.0104}) == [True] * 4  # the overlap probe
    assert schedule.summary()['ms_per_step']['inline'] == pytest.approx(10.1)
    # overlap, 23% cheaper than the stall, lost to the first step
    assert drive(schedule, clock, 8, {True: 0.0104, False: 0.0100}) == [False] * 8


def test_inline_clearly_slower_is_not_reprobed_while_overlapped_steps_cost_the_same():
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=8, clock=clock)
    modes = drive(schedule, clock, 4 + 4 + 400, {True: 0.010, False: 0.020})
    assert modes[:4] == [False] * 4 and modes[4:] == [True] * 404  # inline measured once, 2x dearer
    assert schedule.summary()['inline_probes_skipped'] > 0
    # overlapped steps get 30% dearer (a learner that starts late): inline is measured again
    assert False in drive(schedule, clock, 3 * 64, {True: 0.013, False: 0.020})


def test_a_small_drift_of_overlapped_steps_does_not_reprobe_a_clearly_slower_inline():
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=8, clock=clock)
    drive(schedule, clock, 4 + 4 + 200, {True: 0.010, False: 0.020})
    assert False not in drive(schedule, clock, 1000, {True: 0.0115, False: 0.020})  # 15% dearer


@pytest.mark.parametrize('cpu_share, expected', [
    (0.95, [(False, 4 + 64), (True, 4), (False, 8)]),  # inline steps kept their thread busy: overlap probed late
    (0.5, [(False, 2), (True, 4), (False, 8)]),  # they waited on something: overlap probed after 2
])
def test_overlap_is_probed_late_after_inline_steps_that_kept_their_thread_busy(cpu_share, expected):
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=8, cpu_bound=0.85, defer_steps=64, clock=clock)
    modes = drive(schedule, clock, sum(n for _, n in expected), {True: 0.011, False: 0.010}, cpu_share)
    assert [(overlap, len(list(g))) for overlap, g in itertools.groupby(modes)] == expected
    assert schedule.summary()['inline_cpu_share'] == cpu_share


def test_overlap_losing_after_waiting_inline_steps_is_reprobed_ever_more_rarely():
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=8, defer_steps=0, clock=clock)
    exploits = [8, 16, 32, 64, 64]
    modes = drive(schedule, clock, 2 + 4 + sum(exploits) + 4 * len(exploits), {True: 0.011, False: 0.010}, 0.5)
    runs = [(overlap, len(list(g))) for overlap, g in itertools.groupby(modes)]
    assert runs[0] == (False, 2)  # the first inline probe's 2 steps waited: overlap probed at once
    assert runs[2::2] == [(False, n) for n in exploits]
    assert all(run == (True, 4) for run in runs[1::2])


def test_overlap_losing_after_busy_inline_steps_is_not_reprobed_while_the_step_stays_the_same():
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=8, defer_steps=0, clock=clock)
    modes = drive(schedule, clock, 4 + 4 + 2000, {True: 0.011, False: 0.010}, 0.95)
    assert modes[4:8] == [True] * 4 and modes[8:] == [False] * 2000  # one overlap probe, lost, never again
    assert schedule.summary()['overlap_probes_skipped'] > 0
    # the inline step gets 30% dearer (a learner that starts late): overlap is measured again, and
    # now wins
    later = drive(schedule, clock, 3 * 64 + 8, {True: 0.011, False: 0.013}, 0.95)
    assert True in later
    assert later[-8:] == [True] * 8


def test_a_small_drift_of_busy_inline_steps_does_not_reprobe_overlap():
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=8, defer_steps=0, clock=clock)
    drive(schedule, clock, 4 + 4 + 200, {True: 0.011, False: 0.010}, 0.95)
    assert True not in drive(schedule, clock, 1000, {True: 0.011, False: 0.0115}, 0.95)  # 15% dearer


@pytest.mark.parametrize('cpu_share, overlaps', [(0.95, False), (0.5, True)])
def test_overlap_measured_slightly_faster_is_kept_only_when_inline_steps_wait(cpu_share, overlaps):
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=4, exploit_steps=8, margin=0.03, cpu_bound_margin=0.10,
                               defer_steps=0, clock=clock)
    modes = drive(schedule, clock, 4 + 4 + 8, {True: 0.0095, False: 0.010}, cpu_share)  # overlap 5% faster
    inline_probe = 4 if cpu_share >= 0.85 else 2  # steps that waited end the inline probe after 2
    assert modes[inline_probe + 4:inline_probe + 12] == [overlaps] * 8


def test_the_choice_after_both_probes_waits_for_the_steps_in_flight():
    clock = FakeClock()
    schedule = OverlapSchedule('auto', probe_steps=2, exploit_steps=8, clock=clock)
    drive(schedule, clock, 2, {True: 0.01, False: 0.02})  # the inline probe
    for _ in range(2):  # the overlap probe, fed while nothing of it has completed
        assert schedule.next_overlaps() is True
        schedule.step_fed()
    assert schedule.wants_drain()  # the exploit segment's schedule is not known yet
    for _ in range(2):
        clock.now += 0.01
        schedule.step_completed()
    assert not schedule.wants_drain()
    assert schedule.next_overlaps() is True  # measured faster


@pytest.mark.parametrize('name', ['overlap', 'inline'])
def test_a_fixed_schedule_is_kept(name):
    clock = FakeClock()
    schedule = OverlapSchedule(name, clock=clock)
    assert set(drive(schedule, clock, 50, {True: 1.0, False: 0.001})) == {name == 'overlap'}


def test_a_pipeline_that_cannot_overlap_runs_inline_in_the_calling_thread(fresh_task):
    threads = []

    def collector(ctx):
        threads.append(threading.current_thread())

    def learner(ctx):
        threads.append(threading.current_thread())

    with task.start(async_mode=True, ctx=OnlineRLContext(), max_lag=2):
        task.use(collector).use(contract(learner, fresh_weights=True))  # on-policy learner last
        task.run(6)
    assert set(threads) == {threading.current_thread()}
    assert task.async_schedule_summary['schedule'] == 'inline'
    assert task.async_schedule_summary['inline_steps'] == 6


def test_stages_that_overlap_well_are_overlapped(fresh_task):
    def stage(ctx):
        threading.Event().wait(0.01)  # releases the GIL, like a simulator or a torch kernel

    with task.start(async_mode=True, ctx=OnlineRLContext(), max_lag=1):
        task.use(stage).use(stage)
        task.run(2 + 4 + 32)
    summary = task.async_schedule_summary
    assert summary['ms_per_step']['overlap'] < 0.8 * summary['ms_per_step']['inline']
    assert summary['inline_steps'] == 2  # they waited: the inline probe ends after 2 steps
    assert summary['overlapped_steps'] == 4 + 32


def test_stages_that_cannot_run_at_once_are_run_inline(fresh_task):
    one_at_a_time = threading.Lock()  # e.g. both hold the GIL for their whole step

    def stage(ctx):
        with one_at_a_time:
            threading.Event().wait(0.005)

    with task.start(async_mode=True, ctx=OnlineRLContext(), max_lag=1):
        task.use(stage).use(stage)
        task.run(2 + 4 + 32 + 4 + 32)
    # Mostly 2 + 32 + 28 inline steps or more. In about 1 run of 10 the 4-step overlap probe
    # reads a median under the 10 ms a step of lock time (completions bunch as the threads win
    # the lock in turn), and 32 steps overlap before their own cost puts the schedule back to inline.
    assert task.async_schedule_summary['inline_steps'] >= 2 + 32, str(task.async_schedule_summary)


def busy(ctx):  # pure Python: holds the GIL and its core for the whole step
    end = time.thread_time() + 0.003
    while time.thread_time() < end:
        pass


def test_a_busy_inline_step_is_not_overlapped_in_a_short_run(fresh_task):
    with task.start(async_mode=True, ctx=OnlineRLContext(), max_lag=1):
        task.use(busy).use(busy)
        task.run(30)
    summary = task.async_schedule_summary
    assert summary['inline_steps'] == 30 and summary['inline_cpu_share'] > 0.85


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='the run-queue time is read from Linux /proc')
def test_a_busy_inline_step_stays_busy_while_other_processes_hold_the_cores(fresh_task, cpu_hogs):
    """Time the feeding thread waited for a core is not time it waited for its step's work."""
    with task.start(async_mode=True, ctx=OnlineRLContext(), max_lag=1):
        task.use(busy).use(busy)
        task.run(30)
    summary = task.async_schedule_summary
    assert summary['inline_steps'] == 30 and summary['inline_cpu_share'] > 0.85


@pytest.mark.parametrize('schedule', ['inline', 'auto', 'overlap'])
def test_a_last_stage_waiting_for_the_next_steps_event_does_not_hang(fresh_task, schedule):
    """The learner of step s waits for what the collector emits in step s + 1: an inline step
    hands the feeding to a new thread and the next step overlaps; steps still complete in order."""
    steps, completed, threads_before = 6, [], threading.active_count()
    received = [threading.Event() for _ in range(steps)]

    def collector(ctx):
        s = ctx.total_step
        deadline = time.monotonic() + 10
        while s > 0 and not received[s - 1].is_set() and time.monotonic() < deadline:
            task.emit(f'collected_{s}')  # until the learner of step s - 1, perhaps not waiting yet, has it
            received[s - 1].wait(0.01)

    def learner(ctx):
        if ctx.total_step < steps - 1:
            assert task.wait_for(f'collected_{ctx.total_step + 1}', timeout=10) is not None
            received[ctx.total_step].set()
        yield
        completed.append(ctx.total_step)

    with task.start(async_mode=True, ctx=OnlineRLContext(), max_lag=1, async_schedule=schedule):
        task.use(collector).use(learner)
        task.run(steps)
    assert completed == list(range(steps))
    assert threading.active_count() == threads_before  # no stage or feeding thread left


def test_a_wrong_schedule_name_fails_at_start(fresh_task):
    with pytest.raises(ValueError, match='async schedule'):
        task.start(async_mode=True, async_schedule='fast')
