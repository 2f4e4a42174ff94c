import numpy as np
import pytest

from ding.data.batch import Batch
from ding.data.buffer.deque_buffer import DequeBuffer
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (HERLearner, OffPolicyLearner, data_pusher, multistep_trainer,
                                       offpolicy_data_fetcher, sqil_data_pusher, trainer)

from .conftest import MockLearnPolicy, drive, make_cfg


def transitions(n, start=0):
    return Batch(obs=np.arange(start, start + n, dtype=np.float32)[:, None], action=np.zeros(n, dtype=np.int64),
                 reward=np.ones(n, dtype=np.float32), done=np.zeros(n, dtype=bool),
                 env_id=np.arange(n, dtype=np.int64) % 2)


def test_data_pusher_pushes_one_batch_and_clears():
    buffer_ = DequeBuffer(size=100)
    ctx = OnlineRLContext(trajectories=transitions(16))
    drive(data_pusher(make_cfg(), buffer_), ctx)
    assert buffer_.count() == 16 and ctx.trajectories is None
    with pytest.raises(RuntimeError, match='Either ctx.trajectories or ctx.episodes should be not None'):
        drive(data_pusher(make_cfg(), buffer_), ctx)


def test_data_pusher_with_nothing_collected_is_quiet_only_while_the_run_finishes():
    # a distributed learner whose wait for data a peer's finish ended has nothing to push
    from ding.framework import task
    buffer_ = DequeBuffer(size=10)
    with task.start():
        with pytest.raises(RuntimeError, match='Either ctx.trajectories or ctx.episodes should be not None'):
            drive(data_pusher(make_cfg(), buffer_), OnlineRLContext())
        task.finish = True
        drive(data_pusher(make_cfg(), buffer_), OnlineRLContext())
    assert buffer_.count() == 0


def test_data_pusher_episodes_are_one_item_each():
    buffer_ = DequeBuffer(size=10)
    ctx = OnlineRLContext(episodes=[transitions(3), transitions(5)])
    drive(data_pusher(make_cfg(), buffer_), ctx)
    assert buffer_.count() == 2 and ctx.episodes is None
    assert sorted(len(d.data) for d in buffer_.sample(2)) == [3, 5]


def test_sqil_data_pusher_sets_reward():
    expert, agent = DequeBuffer(size=10), DequeBuffer(size=10)
    for buf, flag in ((expert, True), (agent, False)):
        ctx = OnlineRLContext(trajectories=transitions(4))
        drive(sqil_data_pusher(make_cfg(), buf, flag), ctx)
    assert expert.sample(4).batch.reward.tolist() == [1, 1, 1, 1]
    assert agent.sample(4).batch.reward.tolist() == [0, 0, 0, 0]


def test_fetcher_waits_for_enough_data_then_samples_batch_size():
    buffer_ = DequeBuffer(size=100)
    fetcher = offpolicy_data_fetcher(make_cfg(), buffer_)
    ctx = OnlineRLContext()
    buffer_.push(transitions(3))
    drive(fetcher, ctx)
    assert ctx.train_data is None
    buffer_.push(transitions(3, start=3))
    drive(fetcher, ctx)
    assert len(ctx.train_data) == 4 and len(set(ctx.train_data.obs[:, 0].tolist())) == 4


def test_fetcher_mixed_and_named_buffers():
    a, b = DequeBuffer(size=10), DequeBuffer(size=10)
    a.push(transitions(10))
    b.push(transitions(10, start=100))
    ctx = OnlineRLContext()
    drive(offpolicy_data_fetcher(make_cfg(), [(a, 0.5), (b, 0.5)]), ctx)
    obs = ctx.train_data.obs[:, 0]
    assert len(obs) == 4 and (obs < 100).sum() == 2
    drive(offpolicy_data_fetcher(make_cfg(), {'expert': a, 'agent': b}), ctx)
    assert sorted(ctx.train_data) == ['agent', 'expert'] and len(ctx.train_data['agent']) == 4


def test_fetcher_writes_priorities_back():
    buffer_ = DequeBuffer(size=10)
    buffer_.push(transitions(4))
    updates = []
    buffer_.update = lambda index, data=None, meta=None: updates.append((sorted(index.tolist()), meta))
    ctx = OnlineRLContext()
    gen = offpolicy_data_fetcher(make_cfg(), buffer_)(ctx)
    next(gen)
    ctx.train_output = {'priority': np.array([1.0, 2.0, 3.0, 4.0])}
    next(gen, None)
    assert updates[0][0] == [0, 1, 2, 3] and updates[0][1]['priority'].tolist() == [1, 2, 3, 4]


def test_trainer_skips_none_and_counts():
    policy = MockLearnPolicy()
    train = trainer(make_cfg(), policy)
    ctx = OnlineRLContext()
    train(ctx)
    assert ctx.train_iter == 0 and policy.batches == []
    ctx.train_data = transitions(4)
    train(ctx)
    assert ctx.train_iter == 1 and ctx.train_output['total_loss'] == 1.0


def test_multistep_trainer_counts_updates():

    class ThreeUpdates:

        def forward(self, data):
            return [{'total_loss': 1.0}] * 3

    ctx = OnlineRLContext(train_data=transitions(4))
    multistep_trainer(ThreeUpdates())(ctx)
    assert ctx.train_iter == 3 and len(ctx.train_output) == 3


def test_offpolicy_learner_updates_per_collect_and_priorities():
    buffer_ = DequeBuffer(size=100)
    buffer_.push(transitions(20))
    seen = []
    real_update = buffer_.update
    buffer_.update = lambda index, data=None, meta=None: seen.append(meta['priority'][0])
    policy = MockLearnPolicy(with_priority=True)
    learner = OffPolicyLearner(make_cfg(), policy, buffer_)
    ctx = OnlineRLContext()
    learner(ctx)
    assert ctx.train_iter == 3 and len(ctx.train_output) == 3 and len(policy.batches) == 3
    assert seen == [1.0, 2.0, 3.0]  # written back after each update, before the next sample
    assert real_update is not None


def test_offpolicy_learner_waits_on_short_buffer():
    buffer_ = DequeBuffer(size=100)
    buffer_.push(transitions(2))
    ctx = OnlineRLContext()
    OffPolicyLearner(make_cfg(), MockLearnPolicy(), buffer_)(ctx)
    assert ctx.train_iter == 0 and ctx.train_output == []


def test_offpolicy_learner_uses_reward_model():

    class DoubleReward:

        def estimate(self, data):
            data['reward'] = data['reward'] * 2
            return data

    buffer_ = DequeBuffer(size=100)
    buffer_.push(transitions(8))
    policy = MockLearnPolicy()
    OffPolicyLearner(make_cfg(), policy, buffer_, reward_model=DoubleReward())(OnlineRLContext())
    assert all(b.reward.tolist() == [2, 2, 2, 2] for b in policy.batches)


def test_her_learner_relabels_episodes():

    class GoalRelabel:
        episode_size = 2

        def estimate(self, episode):
            relabelled = [dict(t.to_dict(), reward=np.float32(5)) for t in episode]
            return [list(episode), relabelled]

    buffer_ = DequeBuffer(size=10)
    buffer_.push(list(transitions(3)))
    buffer_.push(list(transitions(2)))
    policy = MockLearnPolicy()
    ctx = OnlineRLContext()
    HERLearner(make_cfg(policy__learn__update_per_collect=2), policy, buffer_, GoalRelabel())(ctx)
    assert ctx.train_iter == 2
    assert len(policy.batches[0]) == 10  # 2 episodes (3 + 2 steps), each twice
    assert sorted(policy.batches[0].reward.tolist()) == [1] * 5 + [5] * 5


def test_fetcher_with_real_per_adds_is_weights_and_updates_priorities():
    from ding.data.buffer.middleware.priority import PriorityExperienceReplay
    buffer_ = DequeBuffer(size=100)
    buffer_.use(PriorityExperienceReplay(buffer_, IS_weight=True))
    buffer_.push(transitions(10))
    ctx = OnlineRLContext()
    gen = offpolicy_data_fetcher(make_cfg(), buffer_)(ctx)
    next(gen)
    assert ctx.train_data.priority_IS.dtype == np.float32 and len(ctx.train_data) == 4
    sampled_obs = sorted(set(ctx.train_data.obs[:, 0].tolist()))  # PER may draw a row twice
    ctx.train_output = {'priority': np.full(4, 7.0)}
    next(gen, None)
    everything = buffer_.sample(indices=np.arange(10))
    raised = sorted(float(o) for o, p in zip(everything.batch.obs[:, 0], everything.meta['priority']) if p == 7.0)
    assert raised == sampled_obs
