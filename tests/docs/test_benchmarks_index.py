"""benchmarks/README.md indexes every benchmark script, the performance guide stays a guide, and
every results file a doc page cites is there (results/ is pruned to what is cited)."""
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / 'benchmarks'
# Parts of the comparison harness, run by compare/run.py or its drivers, not by a user.
HARNESS_PARTS = {'compare/aggregate.py', 'compare/report_table.py', 'compare/seed_guard.py', 'compare/venvs.py',
                 'compare/d3rlpy_offline_runner.py', 'compare/benchmarl_mappo.py', 'compare/maskable_ppo_sb3c.py',
                 'compare/edac_di_engine_runner.py', 'compare/offline_eval.py'}


FOLDERS = ('throughput', 'learning', 'compare', 'gpu', 'di_engine')


def benchmark_scripts():
    for path in sorted(BENCHMARKS.glob('*.py')) + sorted(BENCHMARKS.glob('*.sh')):
        yield path.name
    for folder in FOLDERS:
        for path in sorted((BENCHMARKS / folder).glob('*.py')) + sorted((BENCHMARKS / folder).glob('*.sh')):
            yield f'{folder}/{path.name}'


def expand_braces(text):
    match = re.search(r'\{([^{}]*)\}', text)
    if not match:
        return [text]
    return [name for alt in match.group(1).split(',')
            for name in expand_braces(text[:match.start()] + alt + text[match.end():])]


def test_readme_names_every_benchmark_script():
    readme = (BENCHMARKS / 'README.md').read_text()
    scripts = list(benchmark_scripts())
    assert 'throughput/collection.py' in scripts and 'learning/ppo_cartpole.py' in scripts
    missing = [s for s in scripts if f'`{s}`' not in readme and s not in HARNESS_PARTS]
    assert not missing, f'benchmarks/README.md does not index {missing}'
    for part in HARNESS_PARTS:  # the harness's parts are named too, as such
        assert os.path.basename(part) in readme, part


def test_performance_guide_is_under_200_lines():
    lines = (ROOT / 'docs' / 'performance.md').read_text().splitlines()
    # issue 36: under 200 lines; the measured tables are generated
    assert len(lines) < 200, f'docs/performance.md has {len(lines)} lines; the measured tables are generated'
    assert '## async_mode' in lines  # operations.md links performance.md#async_mode


def test_every_results_file_a_page_cites_exists():
    pages = sorted((ROOT / 'docs').glob('*.md')) + [ROOT / 'README.md', BENCHMARKS / 'compare' / 'README.md']
    cited = set()
    for page in pages:
        for ref in re.findall(r'benchmarks/results/[\w.{},/-]+', page.read_text()):
            cited.update(expand_braces(ref.rstrip('.,')))
    assert 'benchmarks/results/sampling.json' in cited
    missing = sorted(ref for ref in cited if re.search(r'\.(json|md)$', ref) and not (ROOT / ref).exists())
    assert not missing, f'cited but not in benchmarks/results: {missing}'


def test_scripts_live_in_the_folders_the_readme_names():
    """benchmarks/ holds only shared libraries at its top; each script is in one of FOLDERS."""
    top = sorted(p.name for p in BENCHMARKS.iterdir() if p.suffix in ('.py', '.sh'))
    assert top == ['machine_load.py'], top
    folders = sorted(p.name for p in BENCHMARKS.iterdir() if p.is_dir() and not p.name.startswith(('.', '_')))
    assert set(folders) == set(FOLDERS) | {'results'}, folders
