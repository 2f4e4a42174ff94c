"""DI-engine 0.5.3's wheel for acceptance tests: downloaded once with pip into the test cache
(`DING_TEST_CACHE`, default ~/.cache/ding-tests), read in place, never copied into the repo.
A test that needs it is skipped, with pip's reason, when it cannot be downloaded."""
import fcntl
import os
import pathlib
import subprocess
import sys
import zipfile
from typing import List

import pytest

CACHE = pathlib.Path(os.environ.get('DING_TEST_CACHE', pathlib.Path.home() / '.cache' / 'ding-tests'))


def wheel_path() -> pathlib.Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / '.download.lock', 'w') as lock:  # pytest-xdist workers: one downloads, the rest wait
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _download_once()


def _download_once() -> pathlib.Path:
    wheels = sorted(CACHE.glob('DI_engine-0.5.3-*.whl'))
    if not wheels:
        proc = subprocess.run([sys.executable, '-m', 'pip', 'download', '--no-deps', 'di-engine==0.5.3', '-d',
                               str(CACHE), '-q'], capture_output=True, text=True, timeout=300)
        wheels = sorted(CACHE.glob('DI_engine-0.5.3-*.whl'))
        if not wheels:
            pytest.skip(f'cannot download DI-engine 0.5.3 with pip: {proc.stderr[-500:]}')
    return wheels[0]


def di_engine_file(path: str) -> str:
    with zipfile.ZipFile(wheel_path()) as z:
        return z.read(path).decode()


def di_engine_names(prefix: str) -> List[str]:
    with zipfile.ZipFile(wheel_path()) as z:
        return sorted(n for n in z.namelist() if n.startswith(prefix))


def run_example_unchanged(name: str, folder: pathlib.Path, timeout: float = 300) -> 'subprocess.CompletedProcess':
    """Run DI-engine's `ding/example/<name>.py` in `folder` with only `import gym` changed to
    gymnasium, against this checkout; `.stdout` holds stdout and stderr together. One torch
    thread, as our entry points set it: the examples do not, and on a 2-core machine torch's
    default thread pool makes each small update several times slower."""
    source = di_engine_file(f'ding/example/{name}.py')
    script = folder / f'{name}.py'
    script.write_text(source.replace('import gym\n', 'import gymnasium as gym\n', 1))
    root = pathlib.Path(__file__).resolve().parents[1]
    env = dict(os.environ, OMP_NUM_THREADS='1', PYTHONPATH=str(root) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    return subprocess.run([sys.executable, str(script)], cwd=folder, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)
