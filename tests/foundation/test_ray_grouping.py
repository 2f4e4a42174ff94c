"""Every test file that starts Ray is on the list that keeps such tests on one pytest-xdist
worker (tests/conftest.py): a Ray test's leak check would otherwise see another worker's Ray."""
import pathlib
import re

from tests.conftest import RAY_STARTERS

TESTS = pathlib.Path(__file__).resolve().parents[1]
# What starts Ray from a test: ray itself, the CLI's distributed flags, or the leak check.
STARTS_RAY = re.compile(r'\bimport ray\b|\bray\.init\(|--collectors|assert_no_ray_left')


def test_every_file_that_starts_ray_is_grouped():
    root = TESTS.parent
    # a test that runs a benchmark script starting Ray starts Ray too
    benchmarks = {p.stem for p in benchmark_scripts(root) if STARTS_RAY.search(p.read_text())}
    runs_one = re.compile(r'^\s*(?:import|from) (?:%s)\b' % '|'.join(sorted(benchmarks)), re.M)
    starters = {p.relative_to(root).as_posix() for p in TESTS.rglob('*.py')
                if p != pathlib.Path(__file__).resolve() and (STARTS_RAY.search(p.read_text())
                                                              or runs_one.search(p.read_text()))}
    missing = sorted(p for p in starters if not p.startswith(RAY_STARTERS))
    assert not missing, f'add to RAY_STARTERS in tests/conftest.py: {missing}'


def benchmark_scripts(root: pathlib.Path):
    """The repository's benchmark scripts; not the peers' venvs that benchmarks/compare keeps in
    its git-ignored .venvs (their site-packages hold thousands of modules, Ray's among them)."""
    return (p for p in (root / 'benchmarks').rglob('*.py')
            if not any(part.startswith('.') for part in p.relative_to(root).parts))


def test_the_pattern_sees_a_ray_start():
    assert STARTS_RAY.search("ding_main(['train', '--collectors', '2'])")
    assert STARTS_RAY.search('import ray\nray.init(num_cpus=2)')
    assert not STARTS_RAY.search('array.init()  # not Ray')
