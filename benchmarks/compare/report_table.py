"""The comparison as a markdown table: one row per (benchmark, threshold), one column per
framework, each cell 'median wall s / median env steps (seeds reached / seeds)'."""
from typing import Any, Dict, List, Optional

from aggregate import OURS_ASYNC, async_ratio, speed_ratio
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


def format_cell(summary: Optional[Dict[str, Any]], budget: int, runs: Optional[Dict[str, Any]] = None,
                cap: Optional[float] = None) -> str:
    if summary is None:
        return 'not run'
    count = f"({summary['reached']}/{summary['seeds']})"
    if summary['median_wall_s'] is None:
        ends = list((runs or {}).values())
        if ends and cap and all(r['end_reason'] == 'wall_cap' for r in ends):  # stopped by time, not by budget
            steps = format_steps(max(r['env_steps'] for r in ends))
            return f'not reached in the {cap:g} s cap (at {steps} env steps) {count}'
        return f'not reached in {format_steps(budget)} {count}'
    return f"{summary['median_wall_s']:.1f} s / {format_steps(summary['median_env_steps'])} {count}"


def format_ratio(ratio: Optional[float]) -> str:
    return '-' if ratio is None else f'{ratio:.2f}x'


def benchmark_rows(name: str, bench: Dict[str, Any], frameworks: List[str]) -> List[str]:
    rows, with_async = [], OURS_ASYNC in frameworks
    per_fw = bench['frameworks']
    for i, threshold in enumerate(bench['thresholds']):
        cells = [format_cell(per_fw[f]['thresholds'][i], bench['env_step_budget'], per_fw[f].get('runs'),
                             bench.get('wall_cap_s')) if f in per_fw else 'not run' for f in frameworks]
        label = f"{ALGO_TITLES.get(bench['algo'], bench['algo'].upper())} {bench['env_id']}"
        ratios = [speed_ratio(per_fw, i)] + ([async_ratio(per_fw, i)] if with_async else [])
        rows.append(f"| {label} | {threshold:g} | " + ' | '.join(cells) +
                    ''.join(f' | {format_ratio(r)}' for r in ratios) + ' |')
    return rows


def eval_every_text(results: Dict[str, Any]) -> str:
    every = {name: b.get('eval_every_env_steps', EVAL_EVERY_ENV_STEPS) for name, b in results['benchmarks'].items()}
    if len(set(every.values())) == 1:
        return f'{next(iter(every.values())):,}'
    return '; '.join(f'{name}: {n:,}' for name, n in every.items())


def render_markdown(results: Dict[str, Any]) -> str:
    frameworks = results['frameworks']
    with_async = OURS_ASYNC in frameworks
    lines = [
        '# Side-by-side comparison: time to threshold',
        '',
        f"Generated {results['generated_at']}{' (QUICK smoke run: not a measurement)' if results['quick'] else ''}. "
        f"Seeds {', '.join(map(str, results['seeds']))}; median over seeds of the wall seconds / env steps at the "
        f'first evaluation reaching the threshold (every {eval_every_text(results)} env steps, 10 greedy episodes '
        'on a separate env; wall time from just before training starts, evaluations included). (n/m): seeds that '
        'reached it.',
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
