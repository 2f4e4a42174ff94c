"""The comparison as a markdown table: one row per (benchmark, threshold), one column per
framework, each cell 'median wall s / median env steps (seeds reached / seeds)'. A framework
stopped by its wall cap before the threshold reads 'not reached in N env steps (wall cap)', and
its row has no ratio."""
from typing import Any, Dict, List, Optional

from aggregate import OURS_ASYNC, async_ratio, capped_frameworks, speed_ratio
from benchmark_specs import EVAL_EVERY_ENV_STEPS

FRAMEWORK_TITLES = {'ours': 'ding (ours)', OURS_ASYNC: 'ding (ours), async_mode', 'sb3': 'Stable-Baselines3',
                    'tianshou': 'Tianshou'}
ALGO_TITLES = {'dqn_minatar': 'DQN', 'qrdqn_minatar': 'QR-DQN'}


def format_steps(steps: float) -> str:
    """2000 -> '2k', 11264 -> '11.3k', 640 -> '640'."""
    steps = int(steps)
    if steps < 1000:
        return str(steps)
    if steps % 1000 == 0:
        return f'{steps // 1000}k'
    return f'{steps / 1000:.1f}k'


def format_cell(summary: Optional[Dict[str, Any]], budget: int) -> str:
    if summary is None:
        return 'not run'
    capped = summary.get('wall_capped') or {}
    if summary['median_wall_s'] is None:
        count = f"({summary['reached']}/{summary['seeds']})"
        if capped:  # the fewest env steps a capped seed ran: what every capped seed can claim
            return f'not reached in {format_steps(min(capped.values()))} env steps (wall cap) {count}'
        return f'not reached in {format_steps(budget)} env steps {count}'
    count = f"({summary['reached']}/{summary['seeds']}{f', {len(capped)} wall-capped' if capped else ''})"
    return f"{summary['median_wall_s']:.1f} s / {format_steps(summary['median_env_steps'])} {count}"


def format_ratio(ratio: Optional[float], capped: bool = False) -> str:
    if capped:
        return 'no ratio (wall cap)'
    return '-' if ratio is None else f'{ratio:.2f}x'


def benchmark_rows(name: str, bench: Dict[str, Any], frameworks: List[str]) -> List[str]:
    rows, with_async = [], OURS_ASYNC in frameworks
    per_fw = bench['frameworks']
    for i, threshold in enumerate(bench['thresholds']):
        cells = [format_cell(per_fw[f]['thresholds'][i], bench['env_step_budget']) if f in per_fw else 'not run'
                 for f in frameworks]
        label = f"{ALGO_TITLES.get(bench['algo'], bench['algo'].upper())} {bench['env_id']}"
        capped = capped_frameworks(per_fw, i)
        ratios = [format_ratio(speed_ratio(per_fw, i), any(f != OURS_ASYNC for f in capped))]
        if with_async:
            ratios.append(format_ratio(async_ratio(per_fw, i), any(f in ('ours', OURS_ASYNC) for f in capped)))
        rows.append(f"| {label} | {threshold:g} | " + ' | '.join(cells) + ''.join(f' | {r}' for r in ratios) + ' |')
    return rows


def eval_every_text(results: Dict[str, Any]) -> str:
    every = {name: b.get('eval_every_env_steps', EVAL_EVERY_ENV_STEPS) for name, b in results['benchmarks'].items()}
    if len(set(every.values())) == 1:
        return f'{next(iter(every.values())):,}'
    return '; '.join(f'{name}: {n:,}' for name, n in every.items())


def held_out_text(results: Dict[str, Any]) -> str:
    sweeps = results.get('seeds_held_out_from')
    return f" (held out: tuned on by none of {', '.join(sweeps)})" if sweeps else ''


def render_markdown(results: Dict[str, Any]) -> str:
    frameworks = results['frameworks']
    with_async = OURS_ASYNC in frameworks
    lines = [
        '# Side-by-side comparison: time to threshold',
        '',
        f"Generated {results['generated_at']}{' (QUICK smoke run: not a measurement)' if results['quick'] else ''}"
        f"{' (TUNING run: not for publication)' if results.get('tuning') else ''}. "
        f"Seeds {', '.join(map(str, results['seeds']))}{held_out_text(results)}; median over seeds of the wall "
        f'seconds / env steps at the first evaluation reaching the threshold (every {eval_every_text(results)} env steps, 10 greedy episodes '
        'on a separate env; wall time from just before training starts, evaluations included). (n/m): seeds that '
        'reached it. A framework stopped by its wall cap before a threshold is "not reached" there, and the row '
        'gets no ratio.',
        '',
        '| benchmark | threshold | ' + ' | '.join(FRAMEWORK_TITLES.get(f, f) for f in frameworks) +
        ' | ours / fastest peer |' + (' async / sync (ours) |' if with_async else ''),
        '|---|---|' + '---|' * len(frameworks) + '---|' + ('---|' if with_async else ''),
    ]
    for name, bench in results['benchmarks'].items():
        lines += benchmark_rows(name, bench, frameworks)
    lines += ['', '## Versions', '']
    for f in frameworks:
        versions = next((b['frameworks'][f]['info'].get('versions') for b in results['benchmarks'].values()
                         if f in b['frameworks'] and b['frameworks'][f]['info'].get('versions')), None)
        text = ', '.join(f'{k} {v}' for k, v in sorted(versions.items())) if versions else 'unknown'
        lines.append(f'- {FRAMEWORK_TITLES.get(f, f)}: {text}')
    return '\n'.join(lines) + '\n'
