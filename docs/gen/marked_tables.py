"""The measured tables of hand-written pages. Each page holds a marker line naming its results file;
at build time (hooks.py) the marker is replaced by the table that the benchmark script which writes
that file draws from it (the script's own `markdown(data)`)."""
import json
import os
from typing import Mapping, Optional

from docgen_common import ROOT
from performance_tables import _load_benchmark_module

# page -> its tables: (results file, the benchmark script that writes it and draws its table)
TABLES = {
    'action_masking.md': [('benchmarks/results/maskable_ppo.json', 'benchmarks/compare/maskable_ppo.py')],
    'offline.md': [('benchmarks/results/d3rlpy_offline_pendulum.json', 'benchmarks/compare/d3rlpy_offline.py'),
                   ('benchmarks/results/edac_vs_di_engine.json', 'benchmarks/compare/edac_vs_di_engine.py')],
    'operations.md': [('benchmarks/results/stop_values.json', 'benchmarks/learning/stop_values.py')],
    'multiagent.md': [('benchmarks/results/mappo_vs_benchmarl.json', 'benchmarks/compare/mappo_vs_benchmarl.py')],
}


def marker(results_file: str) -> str:
    return f'<!-- generated: {results_file} -->'


def table(results_file: str, script: str, results: Optional[str] = None) -> str:
    name = 'benchmarks_' + os.path.splitext(os.path.basename(script))[0]
    module = _load_benchmark_module(os.path.join(ROOT, script), name, (os.path.dirname(os.path.join(ROOT, script)), ))
    with open(results or os.path.join(ROOT, results_file)) as f:
        return module.markdown(json.load(f))


def fill(page: str, markdown: str, results: Optional[Mapping[str, str]] = None) -> str:
    """The page with each of its markers replaced; a page that lost a marker fails the build.
    `results`: files to read instead of the named results files (tests)."""
    for results_file, script in TABLES.get(page, ()):
        if markdown.count(marker(results_file)) != 1:
            raise RuntimeError(f'docs/{page} must hold the line {marker(results_file)} exactly once')
        instead = (results or {}).get(results_file)
        markdown = markdown.replace(marker(results_file), table(results_file, script, instead))
    return markdown
