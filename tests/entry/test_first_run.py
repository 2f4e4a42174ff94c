"""`make run`, the newcomer's first command: it installs ding's base dependencies and only the
plot extra (for `ding plot`), so the path it trains through (`ding train`, then `ding eval` and
`ding resume` on its folder) must work with the base dependencies alone. Checked in a fresh interpreter whose only packages are
those of a bare install: a folder of links to the base dependencies' files, `python -S` (no
site-packages), so optional imports (e.g. torch.hub's tqdm) take their fallback as there."""
import ast
import json
import os
import subprocess
import sys
from importlib import metadata

from packaging.requirements import Requirement

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBE = r'''
import json, sys
from ding.entry.cli import main
run = sys.argv[1]
small = json.dumps({'policy': {'random_collect_size': 0, 'collect': {'n_sample': 8}}})
codes = [main(['train', '--algo', 'dqn', '--env', 'CartPole-v0', '--max-env-step', '64', '--no-progress',
               '--checkpoint-freq', '32', '--config', small, '--exp-name', run]),
         main(['eval', run, '--episodes', '1']),
         main(['resume', run, '--no-progress'])]
print(json.dumps(codes))
'''


def base_requirements() -> list:
    """setup.py's install_requires, read without running it (it is the tree under test)."""
    tree = ast.parse(open(os.path.join(ROOT, 'setup.py')).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == 'install_requires':
            return [ast.literal_eval(elt) for elt in node.value.elts]
    raise AssertionError('setup.py has no install_requires')


def closure(names: list) -> set:
    """The distributions `names` pull in, transitively, leaving out what only an extra asks for."""
    seen, todo = set(), [Requirement(n).name for n in names]
    while todo:
        name = todo.pop().lower().replace('_', '-')
        if name in seen:
            continue
        seen.add(name)
        for text in metadata.requires(name) or []:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({'extra': ''}):
                todo.append(req.name)
    return seen


def bare_site(folder) -> list:
    """Links in `folder` to the top-level files of the base dependencies (and torch: the Makefile
    installs the CPU wheel first); returns the distributions linked."""
    folder.mkdir()
    linked = sorted(closure(base_requirements() + ['torch']))
    for name in linked:
        dist = metadata.distribution(name)
        for top in {f.parts[0] for f in dist.files or []} - {'..', '__pycache__'}:
            source, link = dist.locate_file(top), folder / top
            if os.path.exists(source) and not os.path.lexists(link) and not top.endswith('.pth'):
                link.symlink_to(source)
    return linked


def test_the_first_run_path_works_with_the_base_dependencies_only(tmp_path):
    linked = bare_site(tmp_path / 'site')
    assert 'gymnasium' in linked and 'torch' in linked and 'matplotlib' not in linked and 'ray' not in linked
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join([ROOT, str(tmp_path / 'site')]), 'OMP_NUM_THREADS': '1',
           'PYTHONNOUSERSITE': '1'}
    out = subprocess.run([sys.executable, '-S', '-c', PROBE, str(tmp_path / 'run')], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [0, 0, 0], out.stderr[-3000:]
    assert {'run.json', 'result.json', 'progress.csv'} <= set(os.listdir(tmp_path / 'run'))


def test_the_bare_interpreter_of_that_test_lacks_the_extras(tmp_path):
    """The check above is only as good as its isolation: an extra's package must not import there."""
    bare_site(tmp_path / 'site')
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join([ROOT, str(tmp_path / 'site')]), 'PYTHONNOUSERSITE': '1'}
    code = 'import importlib.util as u; print([m for m in ("matplotlib", "ray", "optuna", "pytest") if u.find_spec(m)])'
    out = subprocess.run([sys.executable, '-S', '-c', code], env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == '[]', out.stderr


def test_make_run_installs_only_the_plot_extra_and_trains_through_ding_train():
    """The Makefile's `run` target: the base install with the plot extra alone (`ding plot` on the
    first run's folder), then `ding train`."""
    text = open(os.path.join(ROOT, 'Makefile')).read()
    targets = {}
    for block in text.split('\n\n'):
        for i, line in enumerate(block.splitlines()):
            if line and not line.startswith(('\t', '#', ' ')) and ':' in line and '=' not in line:
                name, deps = line.split(':', 1)
                targets[name.strip()] = (deps.split(), [r.strip() for r in block.splitlines()[i + 1:]
                                                        if r.startswith('\t')])
    deps, recipe = targets['run']
    assert recipe == ['$(PYTHON) -m ding.entry.cli train --algo dqn --env CartPole-v0 --exp-name cartpole_dqn_seed0']
    install_steps = [step for dep in deps for step in targets[dep][1]]
    extras = [step[step.index('['):step.index(']') + 1] for step in install_steps if '[' in step]
    assert install_steps and extras == ['[plot]'], install_steps
