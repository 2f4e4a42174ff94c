"""The README's comparison table is the one `benchmarks/compare/run.py` renders from
benchmarks/results/compare.json (issue 37): a table edited by hand, or left behind by a re-run,
fails here."""
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / 'benchmarks' / 'compare'), str(ROOT / 'benchmarks' / 'compare' / 'runners')]

import report_table  # noqa: E402


def published():
    return json.loads((ROOT / 'benchmarks' / 'results' / 'compare.json').read_text())


def test_readme_table_is_the_one_rendered_from_compare_json():
    readme, results = (ROOT / 'README.md').read_text(), published()
    assert readme == report_table.with_readme_summary(readme, results), \
        ('README.md comparison table differs from compare.json: run benchmarks/compare/run.py --aggregate-only '
         f"--seeds {' '.join(map(str, results['seeds']))}")


def test_an_edited_number_is_caught():
    readme = report_table.with_readme_summary((ROOT / 'README.md').read_text(), published())
    row = next(line for line in readme.splitlines() if line.startswith('| DQN CartPole-v1 to 475 |'))
    edited = readme.replace(row, row.replace(' s (', '1 s (', 1))
    assert edited != readme
    assert edited != report_table.with_readme_summary(edited, published())


def test_published_seeds_are_held_out():
    results = published()
    assert not results['quick'] and not results.get('tuning')
    assert min(results['seeds']) >= 1000, results['seeds']


def test_a_readme_without_the_block_is_refused():
    with pytest.raises(ValueError, match='compare table'):
        report_table.with_readme_summary('# no table here\n', published())
