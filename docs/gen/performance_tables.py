"""The benchmark tables page, generated from `benchmarks/results/*.json` (each written by the
script of the same name in `benchmarks/`). The side-by-side comparison and the sampling modes
are rendered by their benchmarks' own table code, export latency by a table here; every other
result file gets its scalar fields and its lists of rows as tables, so a new result file shows
up without touching this script."""
import glob
import importlib.util
import json
import os
import sys
from typing import Any, Callable, Dict, Iterator, List, Tuple

from docgen_common import ROOT, md_cell

RESULTS = os.path.join(ROOT, 'benchmarks', 'results')
MAX_ROWS = 30  # a longer list of rows is cut, saying how many were left out


def _load_benchmark_module(path: str, name: str, extra_paths: Tuple[str, ...] = ()):
    for extra in extra_paths:  # report_table imports `aggregate` and `runners/benchmark_specs` by plain name
        if extra not in sys.path:
            sys.path.insert(0, extra)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compare(data: Dict[str, Any]) -> str:
    folder = os.path.join(ROOT, 'benchmarks', 'compare')
    table = _load_benchmark_module(os.path.join(folder, 'report_table.py'), 'compare_report_table',
                                   (folder, os.path.join(folder, 'runners')))
    text = table.render_markdown(data)
    # two levels down: under this page's '## <file>' section
    return '\n'.join('##' + line if line.startswith('#') else line for line in text.splitlines())


def _sampling(data: Dict[str, Any]) -> str:
    sampling = _load_benchmark_module(os.path.join(ROOT, 'benchmarks', 'throughput', 'sampling.py'), 'benchmarks_sampling')
    return f"{md_cell(data.get('note', ''))}\n\n{sampling.markdown(data['results'])}"


def _export_latency(data: Dict[str, Any]) -> str:
    lines = [md_cell(data['what']), '',
             '| policy | batch | ' + ' | '.join(_export_methods(data)) + ' |',
             '|---|---|' + '---|' * len(_export_methods(data))]
    for policy, batches in data['results'].items():
        for batch, methods in batches.items():
            cells = [f"{methods[m]['median_us']:,.1f} ({methods[m]['p90_us']:,.1f})" if m in methods else '-'
                     for m in _export_methods(data)]
            lines.append(f"| {policy} | {batch.replace('batch_', '')} | " + ' | '.join(cells) + ' |')
    lines += ['', 'microseconds per call: median (p90).', '',
              f"Parity, max |action difference| against eager on 1,000 observations: "
              f"{md_cell(json.dumps(data.get('parity_max_abs_action_diff_vs_eager_1000_obs')))}"]
    return '\n'.join(lines)


def _export_methods(data: Dict[str, Any]) -> List[str]:
    methods: Dict[str, None] = {}
    for batches in data['results'].values():
        for per_method in batches.values():
            methods.update(dict.fromkeys(per_method))
    return list(methods)


def _atari_split(data: Dict[str, Any]) -> str:
    split = _load_benchmark_module(os.path.join(ROOT, 'benchmarks', 'throughput', 'atari_split.py'),
                                   'benchmarks_atari_split')
    return split.markdown(data)


def _maskable_ppo(data: Dict[str, Any]) -> str:
    script = _load_benchmark_module(os.path.join(ROOT, 'benchmarks', 'compare', 'maskable_ppo.py'),
                                    'benchmarks_maskable_ppo')
    return script.markdown(data)


SPECIAL: Dict[str, Callable[[Dict[str, Any]], str]] = {
    'compare': _compare, 'compare_quick': _compare, 'sampling': _sampling, 'export_latency': _export_latency,
    'maskable_ppo': _maskable_ppo}


def _scalars(data: Any, prefix: str = '') -> Iterator[Tuple[str, Any]]:
    """Dotted paths to the numbers and strings of nested dicts (lists are left to `_row_lists`)."""
    for key, value in data.items():
        if isinstance(value, dict):
            yield from _scalars(value, f'{prefix}{key}.')
        elif isinstance(value, (int, float, str, bool)) or value is None:
            yield f'{prefix}{key}', value


def _row_lists(data: Any, prefix: str = '') -> Iterator[Tuple[str, List[Dict[str, Any]]]]:
    for key, value in data.items():
        if isinstance(value, dict):
            yield from _row_lists(value, f'{prefix}{key}.')
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            yield f'{prefix}{key}', value


def _format(value: Any) -> str:
    if isinstance(value, float):
        return f'{value:,.4g}' if abs(value) < 1e5 else f'{value:,.0f}'
    return md_cell(value)


def _generic(data: Any) -> str:
    if not isinstance(data, dict):
        data = {'rows': data} if isinstance(data, list) else {'value': data}
    lines = []
    scalars = list(_scalars(data))
    if scalars:
        lines += ['| field | value |', '|---|---|'] + [f'| `{k}` | {_format(v)} |' for k, v in scalars]
    for name, rows in _row_lists(data):
        columns = list(dict.fromkeys(k for row in rows for k, v in row.items()
                                     if isinstance(v, (int, float, str, bool)) or v is None))
        if not columns:
            continue
        lines += ['', f'`{name}`:', '', '| ' + ' | '.join(columns) + ' |', '|---' * len(columns) + '|']
        for row in rows[:MAX_ROWS]:
            lines.append('| ' + ' | '.join(_format(row.get(c, '')) for c in columns) + ' |')
        if len(rows) > MAX_ROWS:
            lines.append(f'\n({len(rows) - MAX_ROWS} more rows in the file)')
    return '\n'.join(lines)


def result_files() -> List[str]:
    return sorted(glob.glob(os.path.join(RESULTS, '*.json')))


def render() -> str:
    lines = ['# Benchmark tables', '',
             'Generated at build time from every `benchmarks/results/*.json`; each file is written by the script '
             'of the same name in `benchmarks/` (`python benchmarks/NAME.py`). The figures are from the reference '
             'machine (2 shared vCPUs, no GPU); what they mean is discussed in [Performance](performance.md).']
    for path in result_files():
        name = os.path.splitext(os.path.basename(path))[0]
        with open(path) as f:
            data = json.load(f)
        script = next((s for s in (f'benchmarks/{name}.py', f'benchmarks/compare/{name}.py',
                                   f'benchmarks/{name.split("_")[0]}/run.py',
                                   'benchmarks/throughput/atari_split.py' if name.startswith('atari_split') else '')
                       if os.path.exists(os.path.join(ROOT, s))), None)
        source = f'`{os.path.relpath(path, ROOT)}`' + (f', written by `{script}`' if script else '')
        special = _atari_split if name.startswith('atari_split') else SPECIAL.get(name, _generic)
        if special is _generic and name.startswith('compare') and {'benchmarks', 'protocol'} <= set(data):
            special = _compare  # another table of the comparison harness (run.py --results-name)
        lines += ['', f'## {name}', '', source, '', special(data)]
    return '\n'.join(lines) + '\n'
