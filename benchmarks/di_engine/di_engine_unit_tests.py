"""Run DI-engine 0.5.3's own unit tests against this package.

    python benchmarks/di_engine/di_engine_unit_tests.py [--repo PATH] [--markers EXPR] [--junit FILE] [--verbose]
        [-- PYTEST_ARGS]

The middleware and env-manager tests ship in the `di-engine==0.5.3` wheel (downloaded once with
pip into the test cache, tests/di_engine_wheel.py). The framework and buffer tests are only in
DI-engine's repository: `--repo PATH` (a copy of tag v0.5.3) adds them. The test files are copied
into a scratch folder outside any package, never into this repository, with three mechanical
edits: `ding.<dir>.tests` imports point at the copies (our package has no tests subpackages),
`import gym` becomes gymnasium (as docs/migrating.md tells users), and DI-engine's pytest markers
are registered; a conftest seeds random, numpy and torch before each test. Every `ding.*` import
then resolves to this checkout.

The tests import treetensor (DI-treetensor), which ding does not need: it and its missing
dependencies are pip-installed into the test cache (`--target`, never into the environment) and
put on the tests' path.

The selection is DI-engine's own CI's, `-m unittest`. Tests excluded on purpose (each with its
reason) are read from the table under "DI-engine's own unit tests" in docs/migrating.md, and
deselected by exact id (a test file named whole is not even imported). Prints
`passed / failed / errors / skipped / excluded of N selected` and exits 1 when any selected test
failed or errored.
"""
import argparse
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from typing import Dict, List, Tuple

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
WHEEL_DIRS = ('ding/framework/middleware/tests/', 'ding/envs/env_manager/tests/')
REPO_DIRS = ('ding/framework/tests/', 'ding/data/buffer/tests/')
# Scratch package name the copies live under, so that they never shadow `ding`.
COPY_PACKAGE = 'dieng_tests'
MIGRATING = ROOT / 'docs' / 'migrating.md'
EXCLUSION_HEADING = "## DI-engine's own unit tests"
# Test-only dependencies of DI-engine's tests: (import name, pip requirement). Installed only when
# the import fails in this environment.
TEST_DEPS = (('treetensor', 'di-treetensor==0.5.0'), ('treevalue', 'treevalue==1.5.0'),
             ('graphviz', 'graphviz==0.21'), ('dill', 'dill==0.4.1'), ('enum_tools', 'enum-tools==0.13.0'))
# DI-engine's own CI selects its unit tests with `-m unittest`; `tmp` (flaky on its CI), `benchmark`
# and `envpooltest` tests are left out there, and here by default (`--markers ''` runs them all).
DEFAULT_MARKERS = 'unittest'
MARKERS = ('unittest', 'tmp', 'benchmark', 'envpooltest', 'envtest', 'other', 'algotest', 'platformtest')


# Every test starts from the same seeds, so a run's outcome does not depend on the draw (DI-engine's
# MockEnv ends episodes at random: test_episode_collector then sees one episode too many when
# both envs end one in the same step, in DI-engine's collector as in ours).
SEEDING_CONFTEST = '''import pathlib
import random

import numpy as np
import pytest
import torch

# Excluded tests, one copied id a line: deselected by exact id (a parametrized test by its base
# id), not by prefix as pytest's --deselect would (test_priority would take test_priority_x along).
EXCLUDED = set(pathlib.Path(__file__).with_name('excluded_tests.txt').read_text().split())


def pytest_collection_modifyitems(config, items):
    keep, drop = [], []
    for item in items:
        (drop if item.nodeid in EXCLUDED or item.nodeid.split('[')[0] in EXCLUDED else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(autouse=True)
def _same_seeds_for_every_test():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
'''


def exclusions(path: pathlib.Path = MIGRATING) -> Dict[str, str]:
    """{test id: reason} from the table under EXCLUSION_HEADING (rows `| `id` | reason |`)."""
    text = path.read_text()
    start = text.find(EXCLUSION_HEADING)
    if start < 0:
        raise SystemExit(f'{path} has no "{EXCLUSION_HEADING}" section')
    section = text[start + len(EXCLUSION_HEADING):]
    end = section.find('\n## ')
    section = section if end < 0 else section[:end]
    rows = re.findall(r'^\|\s*`([^`]+)`\s*\|\s*(.+?)\s*\|\s*$', section, flags=re.M)
    return {test_id: reason for test_id, reason in rows}


def test_deps_path(cache: pathlib.Path) -> str:
    """A folder holding the test-only dependencies this environment lacks ('' when none)."""
    missing = [req for name, req in TEST_DEPS if importlib.util.find_spec(name) is None]
    if not missing:
        return ''
    target = cache / 'di-engine-test-deps'
    stamp = target / ('.installed-' + '-'.join(sorted(re.sub(r'\W', '_', r) for r in missing)))
    if not stamp.exists():
        proc = subprocess.run([sys.executable, '-m', 'pip', 'install', '-q', '--no-deps', '--target', str(target),
                               *missing], capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f'cannot install the tests\' dependencies {missing}: {proc.stderr[-500:]}')
        stamp.touch()
    return str(target)


def _rewrite(text: str) -> str:
    # `ding.framework.middleware.tests` (absolute, or `from . import` in a tests dir) -> the copies
    text = re.sub(r'\bding((?:\.\w+)*?)\.tests\b', lambda m: f'{COPY_PACKAGE}{m.group(1)}.tests', text)
    text = re.sub(r'^import gym$', 'import gymnasium as gym', text, flags=re.M)
    return re.sub(r'^from gym(\.\w+)* import', lambda m: m.group(0).replace('gym', 'gymnasium', 1), text, flags=re.M)


def _write(folder: pathlib.Path, name: str, text: str) -> None:
    """DI-engine's `ding/x/tests/f.py` -> `folder/dieng_tests/x/tests/f.py` (packages made on the way)."""
    rel = pathlib.PurePosixPath(name).relative_to('ding')
    target = folder / COPY_PACKAGE / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    for parent in [folder / COPY_PACKAGE, *(folder / COPY_PACKAGE / p for p in rel.parents if str(p) != '.')]:
        (parent / '__init__.py').touch(exist_ok=True)
    if name.endswith('.py'):
        text = _rewrite(text)
        # `from ..base_env_manager import X` in a copied tests dir means our module of that dir
        package = '.'.join(rel.parent.parent.parts)
        text = re.sub(r'^from \.\.(\w+)', lambda m: f'from ding.{package}.{m.group(1)}', text, flags=re.M)
    target.write_text(text)


def copy_tests(folder: pathlib.Path, repo: str = '') -> List[str]:
    """Copy DI-engine's test dirs into folder; returns the copied dirs (relative to folder)."""
    from tests.di_engine_wheel import wheel_path
    with zipfile.ZipFile(wheel_path()) as z:
        for name in z.namelist():
            if name.startswith(WHEEL_DIRS) and not name.endswith('/'):
                _write(folder, name, z.read(name).decode())
    dirs = list(WHEEL_DIRS)
    if repo:
        for d in REPO_DIRS:
            source = pathlib.Path(repo) / d
            if not source.is_dir():
                raise SystemExit(f'--repo {repo}: no {d} there (give a copy of DI-engine v0.5.3)')
            for f in sorted(source.rglob('*')):
                if f.is_file() and '__pycache__' not in f.parts:
                    _write(folder, f.relative_to(repo).as_posix(), f.read_text())
        dirs += list(REPO_DIRS)
    (folder / 'pytest.ini').write_text('[pytest]\nmarkers =\n' + ''.join(f'    {m}: DI-engine marker\n' for m in MARKERS)
                                       + 'filterwarnings =\n    ignore::DeprecationWarning\n')
    (folder / 'conftest.py').write_text(SEEDING_CONFTEST)
    (folder / 'excluded_tests.txt').write_text(''.join(to_copied_id(t) + '\n' for t in exclusions() if '::' in t))
    return [COPY_PACKAGE + '/' + d[len('ding/'):] for d in dirs]


def to_copied_id(test_id: str) -> str:
    """`ding/framework/tests/test_task.py::test_x` (DI-engine's id) -> the id of the copy."""
    return re.sub(r'^ding/', COPY_PACKAGE + '/', test_id)


def run(repo: str = '', pytest_args: Tuple[str, ...] = (), junit: str = '', timeout: int = 300,
        markers: str = DEFAULT_MARKERS) -> dict:
    """Run the tests; returns {'passed', 'failed', 'errors', 'skipped', 'excluded', 'selected', 'failures'}."""
    from tests.di_engine_wheel import CACHE
    excluded = exclusions()
    with tempfile.TemporaryDirectory(prefix='di-engine-tests-') as tmp:
        folder = pathlib.Path(tmp)
        dirs = copy_tests(folder, repo)
        deps = test_deps_path(CACHE)
        path = [str(ROOT)] + ([deps] if deps else []) + [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), OMP_NUM_THREADS=os.environ.get('OMP_NUM_THREADS', '1'))
        # DI-engine's wandb tests call wandb.init(anonymous='must'): offline, they need no account or network
        env.setdefault('WANDB_MODE', 'offline')
        env.setdefault('WANDB_DIR', tmp)
        summary = {'passed': 0, 'failed': 0, 'errors': 0, 'skipped': 0, 'failures': []}
        output = []
        # One pytest per directory: a conftest that cannot be imported stops only its directory.
        for i, test_dir in enumerate(dirs):
            report = folder / f'junit-{i}.xml'
            args = [sys.executable, '-m', 'pytest', '-q', '-rfE', '-p', 'no:cacheprovider', '--rootdir', tmp,
                    '-c', str(folder / 'pytest.ini'), '--continue-on-collection-errors', f'--timeout={timeout}', f'--junitxml={report}', test_dir]
            if markers:
                args += ['-m', markers]
            for test_id in excluded:  # a whole file is not even imported; single tests: the conftest
                copied = to_copied_id(test_id)
                if copied.startswith(test_dir) and '::' not in copied:
                    args += ['--ignore', copied]
            proc = subprocess.run(args + list(pytest_args), cwd=tmp, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
            output.append(proc.stdout)
            if not report.exists():  # e.g. its conftest failed to import: one error for the directory
                summary['errors'] += 1
                last = [line for line in proc.stdout.splitlines() if line.startswith('E ')]
                summary['failures'].append(f'error {test_dir} (not collected): {last[-1] if last else proc.stdout[-200:]}')
                continue
            if junit:
                shutil.copy(report, f'{junit}.{i}.xml')
            for key, value in summarise(report).items():
                summary[key] += value
    summary['selected'] = summary['passed'] + summary['failed'] + summary['errors'] + summary['skipped']
    summary['output'] = '\n'.join(output)
    summary['excluded'] = sum(to_copied_id(t).startswith(tuple(dirs)) for t in excluded)  # in the dirs run
    return summary


def summarise(report: pathlib.Path) -> dict:
    counts = {'passed': 0, 'failed': 0, 'errors': 0, 'skipped': 0, 'failures': []}
    for case in ET.parse(report).iter('testcase'):
        test_id = f"{case.get('classname', '')}::{case.get('name')}"
        outcome = 'passed'
        for child in case:
            if child.tag == 'failure':
                outcome = 'failed'
            elif child.tag == 'error':
                outcome = 'errors'
            elif child.tag == 'skipped':
                outcome = 'skipped'
            if outcome != 'passed':
                message = (child.get('message') or '').splitlines()
                if outcome != 'skipped':
                    counts['failures'].append(f"{outcome[:-1] if outcome == 'errors' else 'failed'} "
                                              f"{test_id}: {message[0][:200] if message else ''}")
                break
        counts[outcome] += 1
    return counts


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--repo', default='', help="a copy of DI-engine v0.5.3's repository: adds its framework and "
                   'buffer tests')
    p.add_argument('--junit', default='', help='keep the junit xml reports as JUNIT.<n>.xml, one per directory')
    p.add_argument('--timeout', type=int, default=300, help='seconds per test (pytest-timeout)')
    p.add_argument('--markers', default=DEFAULT_MARKERS, help="pytest -m expression ('' for every test)")
    p.add_argument('--verbose', action='store_true', help="print pytest's output")
    p.add_argument('pytest_args', nargs='*', help='passed on to pytest (after --)')
    args = p.parse_args()
    s = run(args.repo, tuple(args.pytest_args), args.junit, args.timeout, args.markers)
    if args.verbose:
        print(s['output'])
    for line in s['failures']:
        print(line)
    print(f"DI-engine 0.5.3 unit tests{' (wheel + repo)' if args.repo else ' (wheel)'}: {s['passed']} passed, "
          f"{s['failed']} failed, {s['errors']} errors, {s['skipped']} skipped of {s['selected']} selected; "
          f"{s['excluded']} excluded (docs/migrating.md)")
    sys.exit(1 if s['failed'] or s['errors'] else 0)


if __name__ == '__main__':
    main()
