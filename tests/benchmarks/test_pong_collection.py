"""benchmarks/throughput/pong_collection.py without the peers: the ratios it reports, the commands it runs
for each arm, and one of our arms run for a few steps on the real ALE."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / 'benchmarks' / 'throughput'
sys.path.append(str(BENCH))

import pong_collection  # noqa: E402


def test_each_arm_is_compared_with_the_peers_arm_of_the_same_actions():
    median = {'ours_subprocess_random': 4000.0, 'ours_subprocess_random_copied': 3600.0,
              'ours_worker_inference_cnn': 2400.0, 'sb3_random': 3200.0, 'sb3_cnn': 1600.0,
              'envpool_random': 8000.0, 'envpool_cnn': 3000.0}
    r = pong_collection.ratios(median)
    assert r['ours_subprocess_random'] == dict(of_envpool=0.5, over_sb3=1.25)
    assert r['ours_subprocess_random_copied'] == dict(of_envpool=0.45, over_sb3=1.125)
    assert r['ours_worker_inference_cnn'] == dict(of_envpool=0.8, over_sb3=1.5)
    assert pong_collection.ratios({'ours_subprocess_cnn': 1.0}) == {
        'ours_subprocess_cnn': dict(of_envpool=None, over_sb3=None)}  # a peer left out: no ratio


def test_peer_arms_run_in_their_own_venvs(tmp_path, monkeypatch):
    import venvs
    made = []
    monkeypatch.setattr(venvs, 'ensure_venv', lambda root, peer: made.append(peer) or Path(f'/v/{peer}/bin/python'))
    args = pong_collection.argparse.Namespace(envs=8, steps=10, warmup=2, seed=0, venv_root=str(tmp_path))
    cmd = pong_collection.arm_command('envpool_cnn', args)
    assert cmd[0] == '/v/envpool/bin/python' and cmd[1].endswith('runners/pong_collection_peers.py')
    assert cmd[2:4] == ['--arm', 'envpool_cnn']
    assert pong_collection.arm_command('sb3_random', args)[0] == '/v/sb3_atari/bin/python'
    assert pong_collection.arm_command('ours_subprocess_cnn', args)[:2] == [sys.executable, str(
        BENCH / 'pong_collection.py')]
    assert made == ['envpool', 'sb3_atari']


@pytest.mark.slow
def test_our_worker_inference_arm_runs_on_pong():
    pytest.importorskip('ale_py')
    out = subprocess.run([sys.executable, str(BENCH / 'pong_collection.py'), '--arm', 'ours_worker_inference_cnn',
                          '--envs', '2', '--steps', '64', '--warmup', '1'], capture_output=True, text=True,
                         timeout=300, cwd=BENCH.parents[1])
    assert out.returncode == 0, out.stderr[-2000:]
    row = json.loads(out.stdout.strip().splitlines()[-1])
    assert row['arm'] == 'ours_worker_inference_cnn' and row['env_steps'] == 128 and row['env_steps_per_s'] > 0
