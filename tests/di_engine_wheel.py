"""DI-engine 0.5.3's wheel for acceptance tests: downloaded once with pip into the test cache
(`DING_TEST_CACHE`, default ~/.cache/ding-tests), read in place, never copied into the repo.
A test that needs it is skipped, with pip's reason, when it cannot be downloaded."""
import os
import pathlib
import subprocess
import sys
import zipfile
from typing import List

import pytest

CACHE = pathlib.Path(os.environ.get('DING_TEST_CACHE', pathlib.Path.home() / '.cache' / 'ding-tests'))


def wheel_path() -> pathlib.Path:
    wheels = sorted(CACHE.glob('DI_engine-0.5.3-*.whl'))
    if not wheels:
        CACHE.mkdir(parents=True, exist_ok=True)
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
