"""The side-by-side table of `docs/action_masking.md`: the page is written by hand, and its marker
line is replaced at build time (hooks.py) by the table of `benchmarks/results/maskable_ppo.json`,
drawn by `benchmarks/compare/maskable_ppo.py`'s own `markdown`."""
import json
import os

from docgen_common import ROOT
from performance_tables import _load_benchmark_module

PAGE = 'action_masking.md'
MARKER = '<!-- generated: benchmarks/results/maskable_ppo.json -->'
RESULTS = os.path.join(ROOT, 'benchmarks', 'results', 'maskable_ppo.json')


def table(results: str = RESULTS) -> str:
    script = _load_benchmark_module(os.path.join(ROOT, 'benchmarks', 'compare', 'maskable_ppo.py'),
                                    'benchmarks_maskable_ppo')
    with open(results) as f:
        return script.markdown(json.load(f))


def fill(markdown: str, results: str = RESULTS) -> str:
    """The page with its marker replaced; a page that lost its marker fails the build."""
    if markdown.count(MARKER) != 1:
        raise RuntimeError(f'docs/{PAGE} must hold the line {MARKER} exactly once')
    return markdown.replace(MARKER, table(results))
