"""Shared fixtures: a Ray session for tests that launch on an existing cluster, and the check
that no Ray process (raylet, gcs_server, workers) outlives a run."""
import os
import tempfile
import time

import psutil
import pytest

RAY_NAMES = ('raylet', 'gcs_server', 'ray::', 'default_worker', 'dashboard', 'log_monitor', 'runtime_env',
             'ray/autoscaler',  # the autoscaler's monitor.py, which `ray start` runs
             'ray.util.client.server')  # the Ray Client proxy (`ray start --ray-client-server-port`)
CLUSTER_ADDRESS_FILE = os.path.join(tempfile.gettempdir(), 'ray', 'ray_current_cluster')


def ray_processes(since: float):
    """Ray processes created after `since` (seconds since the epoch)."""
    found = []
    for p in psutil.process_iter(['name', 'cmdline', 'create_time']):
        try:
            if p.info['create_time'] < since - 1 or p.pid == os.getpid():
                continue
            text = ' '.join([p.info['name'] or ''] + (p.info['cmdline'] or []))
            if any(n in text for n in RAY_NAMES) and 'pytest' not in text:
                found.append((p.pid, text[:120]))
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return found


def stop_clusters_started_since(since: float) -> None:
    """End the Ray processes created after `since` that are not this process's descendants (a
    cluster from `ray start`). Not `ray stop`: it ends every cluster on the machine, the test
    session's too, and a driver whose raylet dies is killed by Ray, pytest included."""
    mine = {p.pid for p in psutil.Process().children(recursive=True)}
    targets = []
    for pid, _ in ray_processes(since):
        if pid not in mine:
            try:
                targets.append(psutil.Process(pid))
            except psutil.NoSuchProcess:
                pass
    for p in targets:
        try:
            p.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(targets, timeout=10)
    for p in alive:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass


def forget_cluster_address(port: int) -> None:
    """`ray start` records its cluster's address in <tmp>/ray/ray_current_cluster, and a later
    `ray.init()` on this machine may try to join it; a cluster stopped by killing its processes
    leaves the file behind. Remove it when it names this port (a cluster this test started)."""
    path = CLUSTER_ADDRESS_FILE
    try:
        with open(path) as f:
            address = f.read().strip()
    except FileNotFoundError:
        return
    if address.endswith(f':{port}'):
        os.remove(path)


def assert_no_ray_left(since: float, wait_s: float = 20.0) -> None:
    """No Ray process started since `since` is alive (after up to `wait_s`), and no cluster
    address written since then is left for a later `ray.init()` on this machine to try to join."""
    deadline = time.time() + wait_s
    while True:
        left = ray_processes(since)
        if not left or time.time() > deadline:
            break
        time.sleep(0.25)
    assert not left, f'Ray processes outlived the run: {left}'
    try:
        written = os.path.getmtime(CLUSTER_ADDRESS_FILE)
    except FileNotFoundError:
        return
    assert written < since - 1, f'{CLUSTER_ADDRESS_FILE} names a cluster started by the run and now gone'


@pytest.fixture(scope='session')
def ray_session():
    """One local Ray cluster for the in-process launches (the launcher keeps a session it did not
    start); starting and tearing down a cluster per run is what the `ditask` tests check."""
    import ray
    since = time.time()
    ray.init(num_cpus=2, include_dashboard=False, namespace='ding', log_to_driver=True)
    yield ray
    ray.shutdown()
    assert_no_ray_left(since)
