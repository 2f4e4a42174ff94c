"""Every ```python block of the documentation site (docs/*.md) is a complete program that runs
as shown; excerpts that are not programs are fenced ```py.

Each block runs in its own interpreter, in a temp dir, with `termination_checker` capped at
`CAP` env steps or train iterations (the blocks train for up to 100k steps as written; the cap
is the only change), and must exit 0 after writing its final checkpoint.
"""
import os
import re
import subprocess
import sys
import textwrap
from glob import glob

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = sorted(os.path.relpath(p, ROOT) for p in glob(os.path.join(ROOT, 'docs', '**', '*.md'), recursive=True))
CAP = 1  # env steps / train iterations: the pipeline stops after its first step, in which every middleware ran once

# Runs the snippet as __main__ after capping every termination_checker it builds.
RUNNER = textwrap.dedent(f'''
    import runpy, sys
    import ding.framework.middleware as mw
    _checker = mw.termination_checker

    def termination_checker(max_env_step=None, max_train_iter=None):
        cap = {CAP} if max_env_step is None else min(max_env_step, {CAP})
        cap_iter = None if max_train_iter is None else min(max_train_iter, {CAP})
        return _checker(max_env_step=cap, max_train_iter=cap_iter)

    mw.termination_checker = termination_checker
    runpy.run_path(sys.argv[1], run_name='__main__')
''')


def python_blocks(path: str):
    with open(os.path.join(ROOT, path)) as f:
        text = f.read()
    return [m.group(1) for m in re.finditer(r'^```python\n(.*?)^```', text, re.S | re.M)]


SNIPPETS = [(path, i, code) for path in DOCS for i, code in enumerate(python_blocks(path))]


def test_docs_have_snippets():
    # the site's pipelines: off-policy, on-policy, env manager (pipelines.md), offline, multi-agent, distributed
    pages = {path for path, _, _ in SNIPPETS}
    assert {'docs/pipelines.md', 'docs/offline.md', 'docs/multiagent.md', 'docs/distributed.md',
            'docs/middleware.md'} <= pages
    assert len(SNIPPETS) >= 6


# The first three programs of pipelines.md run in `make test`; the others (about 4 s of CPU each) with the slow tests.
FAST = {('docs/pipelines.md', 0), ('docs/pipelines.md', 1), ('docs/pipelines.md', 2)}


@pytest.mark.parametrize('path, index, code', [
    pytest.param(p, i, c, id=f'{p}#{i}', marks=() if (p, i) in FAST else pytest.mark.slow) for p, i, c in SNIPPETS
])
def test_snippet_runs(path, index, code, tmp_path):
    # A complete program: its own imports, ding_init, and a bound the cap can shorten.
    assert 'ding_init(cfg)' in code and 'termination_checker(' in code, f'{path} block {index} is not complete'
    script = tmp_path / 'snippet.py'
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''))
    proc = subprocess.run([sys.executable, '-c', RUNNER, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f'{path} block {index} exited {proc.returncode}:\n{proc.stderr[-3000:]}'
    # It ran the pipeline to its end: CkptSaver wrote the final checkpoint.
    assert list(tmp_path.glob('*/ckpt/final.pth.tar')), f'{path} block {index} left no final checkpoint'
