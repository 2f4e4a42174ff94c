"""Several machines, tested on one (ray.cluster_utils.Cluster): collectors placed on the node
with their custom resource, rescheduled when that node goes away, training going on."""
import json
import os
import subprocess
import sys
import time

import pytest

from tests.distributed.conftest import assert_no_ray_left


@pytest.mark.slow
def test_collectors_run_on_their_node_and_survive_its_removal(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    since = time.time()
    proc = subprocess.run([sys.executable, '-m', 'tests.distributed.cluster_scenario', str(tmp_path)], cwd=root,
                          capture_output=True, text=True, timeout=500)
    assert_no_ray_left(since)
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads((tmp_path / 'report.json').read_text())
    for node in ('node1', 'node2'):  # each collector: first on the second machine, then on the third
        first, *later = report['placements'][node]
        assert report['second'] in report['placements'][node]
        assert report['third'] in report['placements'][node]
    assert report['incarnations'] == {'1': 2, '2': 2}
    env_step_5, train_iter_5 = map(int, report['progress_at_5'].split(','))
    assert report['learner']['env_step'] > env_step_5 and report['learner']['train_iter'] > train_iter_5
