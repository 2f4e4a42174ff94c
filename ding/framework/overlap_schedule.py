"""Whether the next step of an async pipeline overlaps the steps in flight or runs alone.

Why: overlap pays only when the stages are long enough and release the GIL (a simulator, a
process-based env manager, a GPU learner). On a pipeline of cheap Python envs and a learner that
is most of the step, the thread hand-offs and GIL contention cost more than the overlap saves,
and async ran 1.07x-1.19x slower than sync on the comparison benchmarks (docs/performance.md).
So async_mode measures both schedules as it runs and keeps the faster:

- `overlap`: the step enters the stage threads while up to `max_lag` earlier ones are in flight;
- `inline`: every earlier step has completed and the feeding thread runs this one through all
  stages itself (the sync schedule: no hand-offs, fresh weights everywhere).

Inline is always within async_mode's contract (at most `max_lag` steps of lag; 0 is allowed).
`auto` alternates segments: a probe of `probe_steps` in each schedule, inline first, then
`exploit_steps` in the faster, then a new probe of the other, and so on; each time a measurement
confirms the choice, the next exploit segment is twice as long (up to 8x), so a stable choice
spends ever fewer steps probing the slower schedule, and a probe 25% slower than the other
schedule after two steps ends there. A schedule's cost is the median interval between step
completions in its latest segment (robust to an evaluation step now and then). Inline is kept
unless overlap is faster by more than `margin`. `overlap` or `inline` fixes the schedule; a
pipeline that cannot overlap at all (max_lag=0, or an on-policy learner last) runs inline.

Inline goes first, and may go on longer, because an overlapped step can cost several inline
ones (3x on DQN CartPole: the learner's small torch ops and the Python-heavy collector trade the
GIL), which a short run never wins back. What hints that overlap will pay is an inline step that
leaves its thread idle, waiting for env processes, a simulator or a GPU. When the feeding
thread was busy for at least `cpu_bound` of each inline probe step (median of thread CPU time
over the wall time it could run: time other processes held the cores does not count), the
overlap probe waits until `defer_steps` more inline steps have run, and overlap must then be
faster by `cpu_bound_margin` instead of `margin`: with nothing to wait for,
the two cost about the same (SAC Pendulum: within 4% either way), and a few percent measured
in favour of overlap were noise that cost 11% on one seed. When overlap then loses, it is probed
again only once the inline step's cost has moved by more than `PROFILE_DRIFT` from what it was
when overlap lost (a learner that starts late, an env that slows down): while the step stays
what it was, a new probe would measure the same loss again, and each probe and the drain after
it cost more than an inline step (SAC Pendulum: its first overlapped step 13-28 ms against 2.5 ms
inline, the others 1-3 ms dearer).

The other way round, steps that wait are what overlap is for: the first inline probe ends after
2 steps when both left the feeding thread waiting (share under `cpu_bound`; the cheaper of the
two is its cost, as the run's first step pays one-time costs and the other may stall), and once
inline steps cost CLEARLY_SLOWER times overlapped ones, inline is probed again only when the overlapped
step's cost has moved by PROFILE_DRIFT. On issue 18's pipeline (63 steps, inline 1.7x dearer)
that cut its inline steps from 6 to 2 and took async from 1.58x to 1.66x sync (medians of 6).
"""
import logging
import time
from typing import Callable, Dict, List, Optional, Tuple

logger = logging.getLogger(__name__)

SCHEDULES = ('auto', 'overlap', 'inline')
MAX_EXPLOIT_GROWTH = 8  # a stable choice is re-probed every 8 x exploit_steps at the least
CPU_BOUND_EXPLOIT_GROWTH = 64  # ... and every 64 x when inline steps kept their thread busy and won
PROFILE_DRIFT = 0.25  # ... and then only once the inline step's cost moved this much (either way)
CLEARLY_SLOWER = 1.25  # a probe this much slower than the other schedule after 2 steps ends there


def _median(values: List[float]) -> float:
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else 0.5 * (values[mid - 1] + values[mid])


class _Segment:
    __slots__ = ('overlap', 'planned', 'probe', 'fed', 'start', 'done_at', 'first_of_run')

    def __init__(self, overlap: bool, planned: int, probe: bool, first_of_run: bool = False) -> None:
        self.overlap, self.planned, self.probe, self.fed = overlap, planned, probe, 0
        self.first_of_run = first_of_run
        self.start: Optional[float] = None
        self.done_at: List[float] = []

    def median_interval(self) -> float:
        times = [self.start] + self.done_at
        intervals = [b - a for a, b in zip(times, times[1:])]
        if self.first_of_run and len(intervals) > 1:
            # the run's first step pays one-time costs (lazy imports, first allocations) that
            # belong to neither schedule; of two intervals, the other alone may be a stall (a core
            # taken by another process), so the cheaper of the two is the step's cost
            intervals = intervals[1:] if len(intervals) > 2 else [min(intervals)]
        return _median(intervals)


class OverlapSchedule:
    """Called by the feeding thread before each step (`wants_drain`, then `next_overlaps`), then
    as it feeds it (`step_fed`: after an inline step's wait for the steps in flight, which is not
    its cost), after each inline step it ran (`inline_step_timed`), and, in step order, as each
    step completes (`step_completed`, under the pipeline's lock)."""

    def __init__(self, schedule: str = 'auto', can_overlap: bool = True, probe_steps: int = 4,
                 exploit_steps: int = 32, margin: float = 0.03, cpu_bound: float = 0.85, defer_steps: int = 64,
                 cpu_bound_margin: float = 0.10, clock: Callable[[], float] = time.perf_counter) -> None:
        if schedule not in SCHEDULES:
            raise ValueError(f'async schedule must be one of {SCHEDULES}, got {schedule!r}')
        if probe_steps < 2 or exploit_steps < 1 or defer_steps < 0:
            raise ValueError(f'probe_steps must be >= 2, exploit_steps >= 1 and defer_steps >= 0, '
                             f'got {probe_steps}, {exploit_steps}, {defer_steps}')
        self.schedule = schedule if can_overlap else 'inline'
        self._probe, self._exploit, self._margin, self._clock = probe_steps, exploit_steps, margin, clock
        self._cpu_bound, self._defer, self._cpu_bound_margin = cpu_bound, defer_steps, cpu_bound_margin
        self._cpu_shares: List[float] = []  # thread CPU / wall of the first inline probe's steps
        self._deferred = False
        self._segments: List[_Segment] = []  # fed, oldest first; completed ones are measured and dropped
        self._cost: Dict[bool, float] = {}  # overlap? -> median seconds between completions, latest segment
        self._best: Optional[bool] = None
        self._steps = {True: 0, False: 0}  # steps fed each way
        self._next = False
        self._planned = 0
        self._exploit_now = exploit_steps  # doubles while probes confirm the choice, up to MAX_EXPLOIT_GROWTH x
        # (the schedule that won, its cost then) when a probe left no doubt: overlap lost on busy
        # inline steps, or inline was CLEARLY_SLOWER than overlap; the other is probed again only
        # once the winner's cost has moved by PROFILE_DRIFT
        self._settled: Optional[Tuple[bool, float]] = None
        self._skipped_probes = {True: 0, False: 0}  # overlap?: probes of it skipped

    def wants_drain(self) -> bool:
        """True when the next choice needs both probes measured and steps are still in flight:
        the feeding thread then waits for them to complete before `next_overlaps`."""
        if self.schedule != 'auto' or (self._segments and self._segments[-1].fed < self._segments[-1].planned):
            return False
        return self._planned >= 2 and len(self._cost) < 2

    def next_overlaps(self) -> bool:
        """Whether the step about to be fed overlaps those in flight."""
        if self.schedule != 'auto':
            overlap = self.schedule == 'overlap'
        else:
            current = self._segments[-1] if self._segments else None
            if current is None or current.fed >= current.planned:
                current = self._plan_next()
                self._segments.append(current)
            current.fed += 1
            overlap = current.overlap
        self._next = overlap
        return overlap

    def step_fed(self, overlapped: Optional[bool] = None) -> None:
        """`overlapped`: how the pipeline fed it (it overlaps a step the schedule meant inline
        while an earlier step waits for an event); default, as `next_overlaps` said."""
        self._steps[self._next if overlapped is None else overlapped] += 1
        current = self._segments[-1] if self._segments else None
        if current is not None and current.start is None:
            current.start = self._clock()

    def step_completed(self) -> None:
        if self.schedule != 'auto' or not self._segments:
            return
        oldest = self._segments[0]
        oldest.done_at.append(self._clock())
        if oldest.probe and (self._clearly_slower(oldest) or self._waited_enough(oldest)):
            oldest.planned = oldest.fed  # feed no more of it; steps already fed still count
        if len(oldest.done_at) == oldest.planned:
            self._segments.pop(0)
            self._cost[oldest.overlap] = oldest.median_interval()
            self._decide(oldest.probe)

    def clock(self) -> float:
        return self._clock()

    def skip_time(self, seconds: float) -> None:
        """Leave out `seconds` just spent with no step in flight (a between-steps callback):
        every time recorded so far moves later by them, so no step interval holds them."""
        for segment in self._segments:
            if segment.start is not None:
                segment.start += seconds
            segment.done_at = [t + seconds for t in segment.done_at]

    def wants_inline_timing(self) -> bool:
        """Whether the inline step about to run should be timed (`inline_step_timed`): only
        those of the first inline probe are, not the deferred ones after it. Timing reads
        /proc (thread_clock.py), and its syscalls made each timed SAC step dearer by far more
        than the 19 us they take: 2.9 ms against 2.6 without the /proc read (medians over 6
        runs of steps 10-60, 2026-11-28)."""
        return self.schedule == 'auto' and self._planned == 1 and not self._deferred

    def inline_step_timed(self, cpu_share: Optional[float]) -> None:
        """How busy the feeding thread was during an inline step it ran: its CPU time over the
        wall time it could have run (thread_clock.py: time waiting for a core does not count)."""
        if self.wants_inline_timing() and cpu_share is not None:
            self._cpu_shares.append(cpu_share)

    def summary(self) -> Dict[str, object]:
        """Steps run in each schedule, and the latest measured cost of each (ms per step)."""
        return {'schedule': self.schedule, 'overlapped_steps': self._steps[True], 'inline_steps': self._steps[False],
                'inline_cpu_share': round(_median(self._cpu_shares), 3) if self._cpu_shares else None,
                'overlap_probes_skipped': self._skipped_probes[True],
                'inline_probes_skipped': self._skipped_probes[False],
                'ms_per_step': {('overlap' if k else 'inline'): round(v * 1e3, 3) for k, v in self._cost.items()}}

    def _plan_next(self) -> _Segment:
        """Probe inline, probe overlap (after `defer_steps` more inline steps when the inline
        probe kept its thread busy), then alternately exploit the faster and probe the other."""
        if self._planned == 1 and not self._deferred and self._defer and self._cpu_bound_steps():
            self._deferred = True
            logger.info('async_mode: inline steps kept their thread %.0f%% busy; probing overlap after %d more',
                        100 * _median(self._cpu_shares), self._defer)
            return _Segment(False, self._defer, probe=False)
        n, self._planned = self._planned, self._planned + 1
        if n < 2:
            return _Segment(n == 1, self._probe, probe=True, first_of_run=n == 0)
        best = bool(self._best)  # both probes are measured by now (`wants_drain`)
        if n % 2 == 0:
            return _Segment(best, self._exploit_now, probe=False)
        if self._settled is not None and not self._settled_cost_moved():
            self._skipped_probes[not best] += 1
            return _Segment(best, self._exploit_now, probe=False)
        return _Segment(not best, self._probe, probe=True)

    def _settled_cost_moved(self) -> bool:
        """The settled winner's latest cost differs from its cost then by more than PROFILE_DRIFT."""
        winner, cost = self._settled
        return abs(self._cost[winner] / cost - 1.0) > PROFILE_DRIFT

    def _cpu_bound_steps(self) -> bool:
        """The inline steps before the first overlap probe kept the feeding thread busy."""
        return bool(self._cpu_shares) and _median(self._cpu_shares) >= self._cpu_bound

    def _waited_enough(self, probe: _Segment) -> bool:
        """The first inline probe's first 2 steps both left their thread waiting (CPU share under
        `cpu_bound`): overlap is what such steps call for, so it is probed without 2 more."""
        shares = self._cpu_shares
        return self._planned == 1 and len(probe.done_at) >= 2 and len(shares) >= 2 and max(shares) < self._cpu_bound

    def _clearly_slower(self, probe: _Segment) -> bool:
        other = self._cost.get(not probe.overlap)
        return other is not None and len(probe.done_at) >= 2 and probe.median_interval() > other * CLEARLY_SLOWER

    def _decide(self, after_probe: bool) -> None:
        if len(self._cost) < 2:
            return
        cpu_bound = self._cpu_bound_steps()
        best = self._cost[True] < self._cost[False] * (1.0 - (self._cpu_bound_margin if cpu_bound else self._margin))
        growth = CPU_BOUND_EXPLOIT_GROWTH if cpu_bound and not best else MAX_EXPLOIT_GROWTH
        if self._best is None and cpu_bound and not best:  # overlap lost where nothing hinted it would win
            self._exploit_now = self._exploit * MAX_EXPLOIT_GROWTH
        elif self._best is not None and best != self._best:
            self._exploit_now = self._exploit
        elif self._best is not None and after_probe:  # the other schedule measured again, still slower
            self._exploit_now = min(self._exploit_now * 2, self._exploit * growth)
        if after_probe:  # settle until the winner's cost moves: overlap just lost on busy inline
            # steps, or inline steps just cost CLEARLY_SLOWER times overlapped ones
            no_doubt = (not best and cpu_bound) or (best and self._cost[False] > self._cost[True] * CLEARLY_SLOWER)
            self._settled = (best, self._cost[best]) if no_doubt else None
        elif self._settled is not None and self._settled[0] != best:
            self._settled = None
        if best != self._best:
            logger.info('async_mode: %s steps (median %.2f ms per step overlapped, %.2f ms inline)',
                        'overlapping' if best else 'inline', self._cost[True] * 1e3, self._cost[False] * 1e3)
        self._best = best
