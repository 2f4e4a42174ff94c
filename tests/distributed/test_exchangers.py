"""The real exchangers between a learner and two collectors (DQN on CartPole): data arrives as
object-store references (read-only, zero-copy arrays), the learner's env_step is exactly the
sum of the increments it consumed, each collector stays within its in-flight bound, and the
collectors act on weights the learner published."""
import pytest

from ding.framework import Parallel
from tests.distributed import mains


@pytest.mark.slow  # kept out of `make test` (under 2 min); CI runs it
def test_collectors_feed_one_learner_through_the_object_store(ray_session):
    steps, bound = 20, 2
    results = Parallel.runner(n_parallel_workers=3, topology='mesh')(mains.dqn_main, learner_steps=steps,
                                                                     max_inflight=bound)
    learner, collectors = results[0], [results[1], results[2]]
    assert learner['n_void'] == 2 and all(c['n_void'] == 2 for c in collectors)  # role gating
    consumed = {node: seq for node, (_, seq) in learner['consumed'].items()}
    assert sorted(consumed) == [1, 2] and all(seq >= 1 for seq in consumed.values())
    # env_step on the learner = the collectors' cumulative env_step at the last batch it consumed
    assert learner['env_step'] == sum(results[n]['history'][seq] for n, seq in consumed.items())
    assert learner['buffer'] == learner['env_step']
    assert any(learner['read_only'])  # a lone batch is the object store's read-only (zero-copy) arrays
    assert learner['train_iter'] > 0
    for c in collectors:
        assert c['inflight_seen'] < bound  # waited for acks instead of running ahead
        assert c['sent'] <= consumed[c['node_id']] + bound + 1
        assert c['loaded_version'] > 0  # loaded weights the learner published
        assert 0 < c['train_iter'] <= learner['train_iter']


@pytest.mark.slow  # kept out of `make test` (under 2 min); CI runs it with the learning tests
def test_a_collector_that_dies_is_restarted_and_rejoins(ray_session, tmp_path):
    marker = str(tmp_path / 'died_once')
    results = Parallel.runner(n_parallel_workers=3, topology='mesh')(mains.dqn_main, learner_steps=15, die_node=2,
                                                                     marker=marker)
    learner = results[0]
    assert (tmp_path / 'died_once').exists()
    assert len(learner['incarnations'][2]) == 2  # data from node 2 before and after its restart
    assert results[2]['sent'] >= 1 and results[2]['loaded_version'] > 0  # the new incarnation collected
    assert learner['train_iter'] > 0 and learner['env_step'] > 0


@pytest.mark.slow  # kept out of `make test` (under 2 min); CI runs it with the learning tests
def test_a_batch_that_never_arrives_is_dropped_after_the_load_timeout(ray_session):
    results = Parallel.runner(n_parallel_workers=2, topology='mesh', timeout_s=120)(mains.stalled_batch_main,
                                                                                 load_timeout=1.0)
    learner = results[0]
    assert learner['lost'] == 1
    (trajectories, env_step), = learner['seen']
    assert list(trajectories['obs']) == [0, 1, 2] and env_step == 4  # only the batch that arrived counts


@pytest.mark.slow  # kept out of `make test` (under 2 min); CI runs it with the learning tests
def test_weights_that_never_arrive_are_skipped_after_the_load_timeout(ray_session):
    results = Parallel.runner(n_parallel_workers=2, topology='mesh', timeout_s=120)(mains.stalled_weights_main,
                                                                                 load_timeout=1.0)
    receiver = results[1]
    assert receiver['skipped'] == 1 and receiver['version_when_skipped'] == -1  # acted on its own weights meanwhile
    assert receiver['weights'] == [7.0, 7.0]  # then loaded version 2
