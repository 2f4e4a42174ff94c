"""The `ditask` command: DI-engine's flags, any working directory, exit status, no leftovers."""
import os
import subprocess
import sys
import textwrap
import time

import pytest

from tests.distributed.conftest import assert_no_ray_left

DITASK = os.path.join(os.path.dirname(sys.executable), 'ditask')
USER_MAIN = '''
import os, time
from ding.framework import task

def main():
    with task.start():
        node = task.router.node_id
        open(os.path.join(os.environ['OUT_DIR'], f'node{node}'), 'w').write(','.join(sorted(task.router.labels)))
        if os.environ.get('FAIL_NODE') == str(node):
            raise RuntimeError(f'node {node} failed on purpose')
        task.use(lambda ctx: time.sleep(0.02))
        first = min([node] + task.router.peer_ids)
        forever = os.environ.get('RUN_FOREVER') == '1'
        task.run(max_step=20 if node == first and not forever else 10**9)  # the first ends; its finish ends all
'''


def _ditask(tmp_path, *flags, fail_node=None):
    pkg = tmp_path / 'pkg'
    pkg.mkdir(exist_ok=True)
    (pkg / 'usermain.py').write_text(textwrap.dedent(USER_MAIN))
    out = tmp_path / 'out'
    out.mkdir(exist_ok=True)
    env = dict(os.environ, OUT_DIR=str(out), FAIL_NODE=str(fail_node))
    cwd = tmp_path / 'elsewhere'  # not the package folder: ditask must not depend on the cwd
    cwd.mkdir(exist_ok=True)
    since = time.time()
    proc = subprocess.Popen([DITASK, '--package', str(pkg), '--main', 'usermain.main', '--num-cpus', '2', *flags],
                            cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        proc.terminate()  # SIGTERM: ditask ends every worker and the cluster before exiting
        stdout, stderr = proc.communicate(timeout=60)
        pytest.fail(f'ditask did not end: {stderr[-3000:]}')
    finally:
        assert_no_ray_left(since)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), out


@pytest.mark.slow  # kept out of `make test` (under 2 min); CI runs it with the learning tests
def test_ditask_runs_main_on_every_worker_and_exits_0(tmp_path):
    proc, out = _ditask(tmp_path, '--parallel-workers', '3', '--topology', 'mesh', '--labels', 'x,y',
                        '--node-ids', '4', '--mq-type', 'nng', '--ports', '50515')
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(os.listdir(out)) == ['node4', 'node5', 'node6']
    assert (out / 'node5').read_text() == 'x,y'
    assert 'Ray carries the messages' in proc.stderr


@pytest.mark.slow
def test_ditask_exits_1_with_the_node_error_when_a_worker_fails(tmp_path):
    proc, out = _ditask(tmp_path, '--parallel-workers', '2', '--topology', 'mesh', fail_node=1)
    assert proc.returncode == 1
    assert 'ditask: node 1 failed: RuntimeError: node 1 failed on purpose' in proc.stderr


def test_ditask_unknown_module_fails_before_starting_ray(tmp_path):
    proc = subprocess.run([DITASK, '--package', str(tmp_path), '--main', 'nothere.main'], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode != 0 and "module 'nothere' not found" in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize('sig', ['SIGINT', 'SIGTERM'])
def test_ditask_interrupted_stops_every_worker_and_the_cluster(tmp_path, sig):
    import signal
    pkg, out = tmp_path / 'pkg', tmp_path / 'out'
    pkg.mkdir()
    out.mkdir()
    (pkg / 'usermain.py').write_text(textwrap.dedent(USER_MAIN))
    env = dict(os.environ, OUT_DIR=str(out), FAIL_NODE='none', RUN_FOREVER='1')
    since = time.time()
    proc = subprocess.Popen([DITASK, '--package', str(pkg), '--main', 'usermain.main', '--parallel-workers', '2',
                             '--node-ids', '1'], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 180
        while len(os.listdir(out)) < 2 and time.time() < deadline:  # both workers are in main() (node 1 runs on)
            time.sleep(0.2)
        proc.send_signal(getattr(signal, sig))
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        assert_no_ray_left(since)
    assert proc.returncode == 130, stderr[-2000:]
    assert 'interrupted' in stderr
