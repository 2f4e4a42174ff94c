"""From runner logs (JSON lines) to the comparison's numbers: time and env steps to each
threshold at the first evaluation reaching it, and their median over seeds.

A seed that never reached a threshold counts as +inf in the median, so the median is finite
only when more than half the seeds reached it; `reached` says how many did.

A seed stopped by its wall cap (or killed without an end record) before a threshold has no
result for it: 'not reached in N env steps' is all it says, and no ratio is drawn from a row
holding such a seed (issue 37: a ratio against a capped run measures the cap, not the framework).
Standard library only.
"""
import json
import math
import statistics
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence


def read_log(path: Path) -> Dict[str, Any]:
    """Split a runner log into its start record, its evaluations and its end record (None if
    the runner died before writing one). A torn last line (killed mid-write) is ignored."""
    start, evals, end = None, [], None
    path = Path(path)
    lines = path.read_text().splitlines() if path.exists() else []
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        event = record.get('event')
        if event == 'start':
            start = record
        elif event == 'eval':
            evals.append(record)
        elif event == 'end':
            end = record
    return {'start': start, 'evals': evals, 'end': end}


def first_reach(evals: Sequence[Dict[str, Any]], threshold: float) -> Optional[Dict[str, float]]:
    """The first evaluation whose mean return is >= threshold, as {wall_s, env_steps}."""
    for record in evals:
        if record['mean_return'] >= threshold:
            return {'wall_s': record['wall_s'], 'env_steps': record['env_steps']}
    return None


def median_or_none(values: Iterable[float]) -> Optional[float]:
    values = list(values)
    if not values:
        return None
    m = statistics.median(values)
    return None if math.isinf(m) else m


# End reasons after which an unreached threshold is a result ('not reached in the budget').
# Anything else ('wall_cap', a run killed before its end record) stopped the run early.
FINISHED_REASONS = ('threshold', 'env_step_budget', 'framework_stopped')


def stopped_early(run: Dict[str, Any]) -> bool:
    """Whether the run ended by its wall cap or died, rather than by threshold or env-step budget."""
    return run['end'] is None or run['end'].get('reason') not in FINISHED_REASONS


def last_env_steps(run: Dict[str, Any]) -> int:
    if run['end'] is not None and 'env_steps' in run['end']:
        return run['end']['env_steps']
    return run['evals'][-1]['env_steps'] if run['evals'] else 0


def summarize_threshold(runs: Dict[int, Dict[str, Any]], threshold: float) -> Dict[str, Any]:
    """Per seed first reach, the medians over all seeds (unreached seeds as +inf), and the env
    steps at which each seed that missed the threshold was stopped early (`wall_capped`)."""
    per_seed = {seed: first_reach(run['evals'], threshold) for seed, run in sorted(runs.items())}
    wall_capped = {str(seed): last_env_steps(runs[seed]) for seed, hit in per_seed.items()
                   if hit is None and stopped_early(runs[seed])}
    reached = [r for r in per_seed.values() if r is not None]
    inf = float('inf')
    return {
        'threshold': threshold,
        'reached': len(reached),
        'seeds': len(per_seed),
        'median_wall_s': median_or_none(r['wall_s'] if r else inf for r in per_seed.values()),
        'median_env_steps': median_or_none(r['env_steps'] if r else inf for r in per_seed.values()),
        'per_seed': {str(seed): r for seed, r in per_seed.items()},
        'wall_capped': wall_capped,
    }


def summarize_runs(runs: Dict[int, Dict[str, Any]]) -> Dict[str, Any]:
    """How each seed's run ended, for the record (crashes show up here)."""
    out = {}
    for seed, run in sorted(runs.items()):
        end, evals = run['end'] or {}, run['evals']
        out[str(seed)] = {
            'end_reason': end.get('reason', 'no_end_record'),
            'returncode': run.get('returncode'),
            'env_steps': end.get('env_steps', evals[-1]['env_steps'] if evals else 0),
            'wall_s': end.get('wall_s', evals[-1]['wall_s'] if evals else None),
            'eval_s': end.get('eval_s'),  # the evaluations' share of wall_s (protocol rule 5)
            'best_return': max((e['mean_return'] for e in evals), default=None),
            'n_evals': len(evals),
        }
    return out


def summarize_budget(runs: Dict[int, Dict[str, Any]]) -> Dict[str, Any]:
    """For runs that train their whole env-step budget (`--whole-budget`): per seed the final and
    best evaluation, the wall time and the env steps per second of wall time (evaluations
    included, as every wall time here), their medians, and the median curve (return at each
    evaluation step every seed reached)."""
    per_seed = {}
    for seed, run in sorted(runs.items()):
        evals, end = run['evals'], run['end'] or {}
        if not evals:
            continue
        wall = end.get('wall_s', evals[-1]['wall_s'])
        steps = end.get('env_steps', evals[-1]['env_steps'])
        per_seed[str(seed)] = {'final_return': evals[-1]['mean_return'],
                               'best_return': max(e['mean_return'] for e in evals), 'wall_s': wall,
                               'eval_s': end.get('eval_s'), 'env_steps': steps,
                               'env_steps_per_s': steps / wall if wall else None,
                               'stopped_early': stopped_early(run)}
    curves = [[(e['env_steps'], e['mean_return']) for e in run['evals']] for run in runs.values() if run['evals']]
    points = min((len(c) for c in curves), default=0)
    return {
        'seeds': len(per_seed),
        'stopped_early': sorted(seed for seed, r in per_seed.items() if r['stopped_early']),
        **{f'median_{key}': median_or_none(r[key] for r in per_seed.values() if r[key] is not None)
           for key in ('final_return', 'best_return', 'wall_s', 'env_steps_per_s')},
        'median_curve': [[statistics.median(c[i][0] for c in curves), statistics.median(c[i][1] for c in curves)]
                         for i in range(points)],
        'per_seed': per_seed,
    }


def framework_info(runs: Dict[int, Dict[str, Any]]) -> Dict[str, Any]:
    """Versions and hyperparameters, from the first run that logged a start record."""
    for _, run in sorted(runs.items()):
        if run['start']:
            return {k: run['start'][k] for k in ('versions', 'hyperparameters', 'torch_threads') if k in run['start']}
    return {}


def summarize_benchmark(thresholds: Sequence[float], runs_by_framework: Dict[str, Dict[int, Dict[str, Any]]],
                        whole_budget: bool = False) -> Dict[str, Any]:
    return {
        framework: {
            'info': framework_info(runs),
            'thresholds': [summarize_threshold(runs, t) for t in thresholds],
            'runs': summarize_runs(runs),
            **({'budget': summarize_budget(runs)} if whole_budget else {}),
        }
        for framework, runs in runs_by_framework.items()
    }


OURS_ASYNC = 'ours_async'  # our runner with async_mode=True: a column of ours, not a peer
# our runner with the peer's (RL Zoo's) network sizes where our config's differ (ours_runner.PEER_NETWORK):
# a column of ours, not a peer, with its own ratio to the fastest peer
OURS_PEER_NET = 'ours_peer_net'
OUR_COLUMNS = ('ours', OURS_ASYNC, OURS_PEER_NET)


def capped_frameworks(benchmark_summary: Dict[str, Any], threshold_index: int) -> List[str]:
    """The frameworks with a seed stopped early (wall cap) before this threshold: the row gets no ratio."""
    return [name for name, s in benchmark_summary.items() if s['thresholds'][threshold_index].get('wall_capped')]


def async_ratio(benchmark_summary: Dict[str, Any], threshold_index: int) -> Optional[float]:
    """Our median wall time with async_mode over the one without, both run in the same sitting."""
    if 'ours' not in benchmark_summary or OURS_ASYNC not in benchmark_summary:
        return None
    if any(f in ('ours', OURS_ASYNC) for f in capped_frameworks(benchmark_summary, threshold_index)):
        return None
    sync_t, async_t = (benchmark_summary[f]['thresholds'][threshold_index]['median_wall_s']
                       for f in ('ours', OURS_ASYNC))
    return None if sync_t is None or async_t is None or sync_t <= 0 else async_t / sync_t


def speed_ratio(benchmark_summary: Dict[str, Any], threshold_index: int, ours: str = 'ours',
                against: Optional[Sequence[str]] = None) -> Optional[float]:
    """Our median wall time (column `ours`: 'ours' or OURS_PEER_NET) over the fastest peer's
    (bars.md target: <= 0.5), among `against` (default: every peer). Our other columns are not
    peers. None when `ours` or a peer of the row was stopped by its wall cap before the threshold:
    its time is unknown, so the ratio would be a guess."""
    if ours not in benchmark_summary:
        return None
    if any(f == ours or f not in OUR_COLUMNS for f in capped_frameworks(benchmark_summary, threshold_index)):
        return None
    ours_t = benchmark_summary[ours]['thresholds'][threshold_index]['median_wall_s']
    peers: List[float] = [
        s['thresholds'][threshold_index]['median_wall_s'] for name, s in benchmark_summary.items()
        if name not in OUR_COLUMNS and (against is None or name in against)
    ]
    peers = [p for p in peers if p is not None]
    if ours_t is None or not peers or min(peers) <= 0:
        return None
    return ours_t / min(peers)
