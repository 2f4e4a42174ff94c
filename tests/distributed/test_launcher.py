"""Parallel.runner on Ray: node ids, labels, remote events, finish on one node ends all, a
failing node ends the run with an error, and nothing is left running afterwards."""
import time

import pytest

from ding.framework import Parallel, task
from ding.framework.distributed.launcher import DistributedRunError
from tests.distributed import mains


@pytest.mark.slow  # kept out of `make test` (under 2 min); CI runs it
def test_runner_runs_main_on_every_node_with_ids_labels_and_remote_events(ray_session):
    results = Parallel.runner(n_parallel_workers=3, topology='mesh', labels='red,blue')(mains.events_main)
    assert sorted(results) == [0, 1, 2]
    for node_id, r in results.items():
        assert r['node_id'] == node_id and r['labels'] == ['blue', 'red']
        assert r['got'] == sorted(set(range(3)) - {node_id})  # every other node's event arrived
    assert len({r['pid'] for r in results.values()}) == 3  # one process per node
    assert results[1]['steps'] <= 1  # node 1 set finish; every node ended (the call returned)
    assert not task.router.is_active  # the driver's own task is untouched


@pytest.mark.slow
def test_star_topology_connects_the_first_node_to_the_rest(ray_session):
    results = Parallel.runner(n_parallel_workers=3, topology='star', node_ids=5)(_peer_ids)
    assert results == {5: [6, 7], 6: [5], 7: [5]}


def _peer_ids():
    return task.router.peer_ids


@pytest.mark.slow  # kept out of `make test` (under 2 min); CI runs it with the learning tests
def test_a_failing_node_ends_every_node_and_raises(ray_session):
    start = time.time()
    with pytest.raises(DistributedRunError, match='node 1 failed: ValueError: node 1 broke on purpose'):
        Parallel.runner(n_parallel_workers=3)(mains.failing_main)
    assert time.time() - start < 60


@pytest.mark.slow  # kept out of `make test` (under 2 min); CI runs it
def test_mq_type_gets_a_message_that_ray_carries_the_traffic(caplog):
    Parallel.runner(n_parallel_workers=1, mq_type='nng')
    assert 'Ray carries the messages' in caplog.text
    assert Parallel() is task.router  # DI-engine's Parallel() singleton: the node's router
