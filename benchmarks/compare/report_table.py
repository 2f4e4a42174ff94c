"""The comparison as a markdown table: one row per (benchmark, threshold), one column per
framework, each cell 'median wall s / median env steps (seeds reached / seeds)'. A framework
stopped by its wall cap before the threshold reads 'not reached in N env steps (wall cap)', and
its row has no ratio."""
from typing import Any, Dict, List, Optional

from aggregate import OUR_COLUMNS, OURS_ASYNC, OURS_PEER_NET, async_ratio, capped_frameworks, speed_ratio
from benchmark_specs import EVAL_EVERY_ENV_STEPS

FRAMEWORK_TITLES = {'ours': 'ding (ours)', OURS_ASYNC: 'ding (ours), async_mode',
                    OURS_PEER_NET: "ding (ours), SB3's network sizes", 'sb3': 'Stable-Baselines3',
                    'tianshou': 'Tianshou', 'di_engine': 'DI-engine'}
SAME_NET = "= ours (SB3's sizes)"  # the peer-network cell of a benchmark whose config already has them
ALGO_TITLES = {'dqn_minatar': 'DQN, MinAtar paper recipe', 'qrdqn_minatar': 'QR-DQN, MinAtar paper recipe',
               'dqn_minatar_tuned': 'DQN, our tuned config', 'qrdqn_minatar_tuned': 'QR-DQN, our tuned config',
               'ppo_hopper': 'PPO, RL Zoo Hopper values',
               **{f'{algo}_{env}': f'{algo.upper()}, each at its published values'
                  for algo in ('sac', 'td3') for env in ('halfcheetah', 'hopper')}}


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


def peer_ratio_text(per_fw: Dict[str, Any], i: int, ours: str = 'ours', against: Any = None) -> str:
    """Column `ours` over the fastest of `against` (default every peer), or why there is no ratio."""
    capped = capped_frameworks(per_fw, i)
    return format_ratio(speed_ratio(per_fw, i, ours, against), any(f == ours or f not in OUR_COLUMNS for f in capped))


def peer_net_ratio_text(per_fw: Dict[str, Any], i: int) -> str:
    """Ours at SB3's network sizes over SB3 (the other peers' networks may differ again): the
    OURS_PEER_NET column, or 'ours' where our config already has SB3's sizes."""
    return peer_ratio_text(per_fw, i, OURS_PEER_NET if OURS_PEER_NET in per_fw else 'ours', ('sb3', ))


def bench_label(bench: Dict[str, Any]) -> str:
    return f"{ALGO_TITLES.get(bench['algo'], bench['algo'].upper())} {bench['env_id']}"


def benchmark_rows(name: str, bench: Dict[str, Any], frameworks: List[str]) -> List[str]:
    rows, with_async, with_peer_net = [], OURS_ASYNC in frameworks, OURS_PEER_NET in frameworks
    per_fw = bench['frameworks']
    for i, threshold in enumerate(bench['thresholds']):
        cells = [format_cell(per_fw[f]['thresholds'][i], bench['env_step_budget']) if f in per_fw
                 else SAME_NET if f == OURS_PEER_NET else 'not run' for f in frameworks]
        label = bench_label(bench)
        ratios = [peer_ratio_text(per_fw, i)]
        if with_peer_net:
            ratios.append(peer_net_ratio_text(per_fw, i))
        if with_async:
            capped = capped_frameworks(per_fw, i)
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
    with_async, with_peer_net = OURS_ASYNC in frameworks, OURS_PEER_NET in frameworks
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
        ' | ours / fastest peer |' + (" ours at SB3's network sizes / SB3 |" if with_peer_net else '')
        + (' async / sync (ours) |' if with_async else ''),
        '|---|---|' + '---|' * len(frameworks) + '---|' + ('---|' if with_peer_net else '')
        + ('---|' if with_async else ''),
    ]
    if results.get('command'):
        lines[2] += f" Regenerate with `{results['command']}`."
    sittings = {name: b['sitting'] for name, b in results['benchmarks'].items() if b.get('sitting')}
    if len(set(sittings.values())) > 1:  # rows re-measured alone (run.py --update): each row's date
        lines[2] += ' Rows measured in separate sittings, each with every framework in it: ' + '; '.join(
            f"{bench_label(results['benchmarks'][name])} {when}" for name, when in sittings.items()) + '.'
    if with_peer_net:
        lines[2] += (" Where our config's network differs from SB3's (RL Zoo's), the column \"SB3's network "
                     "sizes\" runs ours with SB3's sizes (benchmarks/compare/runners/ours_runner.py, PEER_NETWORK).")
    for name, bench in results['benchmarks'].items():
        lines += benchmark_rows(name, bench, frameworks)
    lines += budget_section(results)
    lines += ['', '## Versions', '']
    for f in frameworks:
        versions = next((b['frameworks'][f]['info'].get('versions') for b in results['benchmarks'].values()
                         if f in b['frameworks'] and b['frameworks'][f]['info'].get('versions')), None)
        text = ', '.join(f'{k} {v}' for k, v in sorted(versions.items())) if versions else 'unknown'
        lines.append(f'- {FRAMEWORK_TITLES.get(f, f)}: {text}')
    return '\n'.join(lines) + '\n'


def budget_section(results: Dict[str, Any]) -> List[str]:
    """For benchmarks whose runs train their whole budget: final and best return, wall time and
    env steps/s per framework (medians over seeds), each framework's wall time over SB3's, and
    the median learning curves side by side."""
    lines: List[str] = []
    for name, bench in results['benchmarks'].items():
        per_fw = {f: s['budget'] for f, s in bench['frameworks'].items() if 'budget' in s}
        if not per_fw:
            continue
        label = bench_label(bench)
        sb3_wall = (per_fw.get('sb3') or {}).get('median_wall_s')
        lines += ['', f"## {label}: {format_steps(bench['env_step_budget'])} env steps for every run", '',
                  'Medians over seeds (per seed in the JSON). Wall time from just before training, evaluations '
                  'included; env steps/s = env steps / wall time. A run stopped before its budget (wall cap, crash) '
                  'is named, and its framework gets no wall-time ratio.', '',
                  '| framework | final return | best return | wall s | env steps/s | wall / SB3 |',
                  '|---|---|---|---|---|---|']
        for f, b in per_fw.items():
            early = f" (stopped early: {', '.join(b['stopped_early'])})" if b['stopped_early'] else ''
            ratio = ('-' if f == 'sb3' or not sb3_wall or b['median_wall_s'] is None or b['stopped_early']
                     or per_fw['sb3']['stopped_early'] else f"{b['median_wall_s'] / sb3_wall:.2f}x")
            lines.append(f"| {FRAMEWORK_TITLES.get(f, f)}{early} | {_num(b['median_final_return'])} | "
                         f"{_num(b['median_best_return'])} | {_num(b['median_wall_s'])} | "
                         f"{_num(b['median_env_steps_per_s'])} | {ratio} |")
        lines += ['', 'Learning curves: median evaluation return over seeds, at each multiple of the evaluation '
                  'interval:', '',
                  '| env steps | ' + ' | '.join(FRAMEWORK_TITLES.get(f, f) for f in per_fw) + ' |',
                  '|---|' + '---|' * len(per_fw)]
        # each framework evaluates at the first step boundary past each multiple: row by the multiple
        every = bench.get('eval_every_env_steps', EVAL_EVERY_ENV_STEPS)
        curves = {f: {int(step) // every * every: ret for step, ret in b['median_curve']} for f, b in per_fw.items()}
        steps = sorted({step for curve in curves.values() for step in curve})
        for step in steps:
            lines.append(f'| {format_steps(step)} | ' + ' | '.join(_num(curves[f].get(step)) for f in per_fw) + ' |')
    return lines


def _num(value: Optional[float]) -> str:
    return '-' if value is None else f'{value:,.1f}' if abs(value) < 100 else f'{value:,.0f}'


# The README's summary table sits between these two lines; `run.py` rewrites it from compare.json
# whenever it writes the published table, and tests/docs/test_readme_compare_table.py checks it.
README_BEGIN = '<!-- compare table: generated by benchmarks/compare/run.py from benchmarks/results/compare.json -->'
README_END = '<!-- end of compare table -->'
PEER_ORDER = ('sb3', 'tianshou', 'di_engine')


def summary_markdown(results: Dict[str, Any]) -> str:
    """The README's summary, as CleanRL's reads: benchmark, ours, each peer, ratio. Cells are the
    median wall seconds to the threshold (seeds that reached it / seeds); the full table with env
    steps is docs/benchmarks.md."""
    peers = [f for f in PEER_ORDER if f in results['frameworks']]
    peer_net = OURS_PEER_NET in results['frameworks']
    lines = [f"Median wall seconds to the threshold on seeds {', '.join(map(str, results['seeds']))}"
             f"{' (held out from every tuning sweep)' if results.get('seeds_held_out_from') else ''}, one torch "
             f"thread on this 2-core CPU, evaluations included; (n/m) seeds reached it. Measured "
             f"{sitting_dates(results)}; env steps, sittings and versions: `benchmarks/results/compare.md`."
             + (" \"ding, SB3's nets\": our config with SB3's network sizes where they differ." if peer_net else ''),
             '',
             '| benchmark | ding | ' + ("ding, SB3's nets | " if peer_net else '')
             + ' | '.join(FRAMEWORK_TITLES[f] for f in peers) + ' | ding / fastest peer |'
             + (" ding at SB3's nets / SB3 |" if peer_net else ''),
             '|---|---|' + '---|' * (len(peers) + (2 if peer_net else 0)) + '---|']
    for bench in results['benchmarks'].values():
        per_fw = bench['frameworks']
        for i, threshold in enumerate(bench['thresholds']):
            label = f"{bench_label(bench)} to {threshold:g}"
            ours = [_summary_cell(per_fw['ours']['thresholds'][i] if 'ours' in per_fw else None,
                                  bench['env_step_budget'])]
            if peer_net:
                ours.append(_summary_cell(per_fw[OURS_PEER_NET]['thresholds'][i], bench['env_step_budget'])
                            if OURS_PEER_NET in per_fw else 'same')
            cells = ours + [_summary_cell(per_fw[f]['thresholds'][i] if f in per_fw else None,
                                          bench['env_step_budget']) for f in peers]
            ratios = [peer_ratio_text(per_fw, i)]
            if peer_net:
                ratios.append(peer_net_ratio_text(per_fw, i))
            lines.append(f'| {label} | ' + ' | '.join(cells) + ''.join(f' | {r}' for r in ratios) + ' |')
    return '\n'.join(lines) + '\n'


def sitting_dates(results: Dict[str, Any]) -> str:
    dates = sorted({b.get('sitting', results['generated_at'])[:10] for b in results['benchmarks'].values()})
    return ' and '.join(dates)


def _summary_cell(summary: Optional[Dict[str, Any]], budget: int) -> str:
    if summary is None:
        return 'not run'
    count = f"({summary['reached']}/{summary['seeds']})"
    if summary['median_wall_s'] is None:
        capped = summary.get('wall_capped') or {}
        steps = min(capped.values()) if capped else budget
        return f"not reached in {format_steps(steps)} steps{' (wall cap)' if capped else ''} {count}"
    return f"{summary['median_wall_s']:.1f} s {count}"


def with_readme_summary(readme: str, results: Dict[str, Any]) -> str:
    """`readme` with the text between README_BEGIN and README_END replaced by the summary."""
    start, end = readme.find(README_BEGIN), readme.find(README_END)
    if start < 0 or end < start:
        raise ValueError(f'README has no {README_BEGIN!r} ... {README_END!r} block')
    return readme[:start + len(README_BEGIN)] + '\n' + summary_markdown(results) + readme[end:]

