"""The env managers' snapshot protocol: a `state_dict()` taken mid-episode, loaded into a
freshly built manager (as a resumed process builds it), continues exactly; a manager that
cannot be captured gives fresh episodes and a reason, never an error."""
import threading
from functools import partial

import gymnasium as gym
import numpy as np
import pytest
import torch

from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.envs.env_manager.alternating_sampler import AlternatingSampler
from ding.envs.env_manager.gym_vector_env_manager import GymVectorEnvManager
from ding.envs.env_manager.snapshot import EnvSnapshotError
from ding.envs.env_manager.subprocess_env_manager import SubprocessEnvManagerV2
from ding.envs.env_manager.worker_inference import WorkerInferenceSampler
from ding.framework.middleware.run_state import env_manager_state, load_env_manager_state
from ding.policy.worker_actor import EpsGreedyActor
from tests.envs.mock_envs import TinyQ

N_ENV = 4


def cartpole():
    return DingEnvWrapper(gym.make('CartPole-v1'))


class UnpicklableCartPole(gym.Wrapper):
    """CartPole holding a lock: it steps fine but cannot be pickled."""

    def __init__(self) -> None:
        super().__init__(gym.make('CartPole-v1'))
        self.lock = threading.Lock()


def unpicklable():
    return DingEnvWrapper(UnpicklableCartPole())


MANAGERS = {
    'base_v2': lambda fns: BaseEnvManagerV2(fns, {}),
    'subprocess': lambda fns: SubprocessEnvManagerV2(fns, dict(worker_num=2)),
    'subprocess_1worker': lambda fns: SubprocessEnvManagerV2(fns, dict(worker_num=1)),
    'alternating': lambda fns: AlternatingSampler(fns, dict(worker_num=2)),
    'gym_vector_sync': lambda fns: GymVectorEnvManager(fns, dict(vector='sync')),
}


def build(kind, fn=cartpole):
    manager = MANAGERS[kind]([fn] * N_ENV)
    manager.seed(7)
    return manager


def rollout(manager, actions):
    out = []
    for a in actions:
        r = manager.step_batch(a)
        out.append((r.next_obs.copy(), r.reward.copy(), r.terminated | r.truncated, r.episode_return.copy()))
    return out


def assert_same(expected, got):
    for (o1, r1, d1, e1), (o2, r2, d2, e2) in zip(expected, got):
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)
        np.testing.assert_array_equal(e1, e2)  # episode returns span the snapshot


ACTIONS = np.random.default_rng(0).integers(0, 2, size=(90, N_ENV))


# (manager that takes the snapshot, manager that loads it): the per-env format also crosses
# between the serial and the subprocess manager and between worker counts
@pytest.mark.parametrize('source,target', [('subprocess', 'subprocess'), ('subprocess', 'subprocess_1worker'),
                                           ('subprocess', 'base_v2'), ('base_v2', 'subprocess'),
                                           ('alternating', 'alternating'), ('gym_vector_sync', 'gym_vector_sync')])
def test_snapshot_continues_mid_episode_exactly(source, target):
    original, fresh = build(source), build(target)
    try:
        original.launch()
        rollout(original, ACTIONS[:30])  # some episodes ended and auto-reset, others are in flight
        state = original.state_dict()
        expected = rollout(original, ACTIONS[30:])
        fresh.load_state_dict(state)  # a closed manager, as a resumed run has it
        assert_same(expected, rollout(fresh, ACTIONS[30:]))
        assert any(np.isfinite(e).any() for *_, e in expected)
    finally:
        original.close()
        fresh.close()


def test_subprocess_snapshot_restores_the_action_space_generator_and_counters():
    original, fresh = build('subprocess'), build('subprocess')
    try:
        original.launch()
        rollout(original, ACTIONS[:5])
        original.dropped_episodes = 3  # as if a worker had been restarted
        state = original.state_dict()
        expected = [original.action_space.sample() for _ in range(10)]
        fresh.load_state_dict(state)
        assert [fresh.action_space.sample() for _ in range(10)] == expected
        assert fresh.dropped_episodes == 3
    finally:
        original.close()
        fresh.close()


def test_worker_inference_rollouts_continue_exactly():
    """The workers' envs and their actors' generators (epsilon-greedy draws) come back."""

    def sampler():
        m = WorkerInferenceSampler([cartpole] * N_ENV, dict(worker_num=2))
        m.seed(5)
        m.bind_actor(partial(EpsGreedyActor, TinyQ), weights)
        return m

    torch.manual_seed(0)
    weights = TinyQ().state_dict()
    original, fresh = sampler(), sampler()
    try:
        original.launch()
        original.collect_rollout(25, {'eps': 0.5})
        state = original.state_dict()
        expected, _ = original.collect_rollout(40, {'eps': 0.5})
        fresh.load_state_dict(state)
        got, _ = fresh.collect_rollout(40, {'eps': 0.5})
        for key in ('obs', 'action', 'reward', 'next_obs', 'done'):
            np.testing.assert_array_equal(expected[key], got[key])
    finally:
        original.close()
        fresh.close()


def test_unpicklable_env_gives_a_reason_and_the_workers_keep_running():
    manager = build('subprocess', unpicklable)
    try:
        manager.launch()
        rollout(manager, ACTIONS[:3])
        with pytest.raises(EnvSnapshotError, match='env 0 .*cannot be pickled'):
            manager.state_dict()
        state = env_manager_state(manager)
        assert 'cannot be pickled' in state['fresh']
        assert manager.worker_restarts == 0  # a snapshot refusal is not an env fault
        rollout(manager, ACTIONS[3:10])
    finally:
        manager.close()


@pytest.mark.parametrize('kind', ['base_v2', 'subprocess', 'alternating'])
def test_no_snapshot_means_fresh_reseeded_episodes(kind):
    original = build(kind, unpicklable)
    fresh = build(kind, unpicklable)
    try:
        original.launch()
        first = original.ready_obs.copy()
        rollout(original, ACTIONS[:20])
        state = env_manager_state(original)
        message = load_env_manager_state(fresh, state, env_step=80)
        assert 'fresh episodes at env_step=80' in message and 'cannot be pickled' in message
        assert fresh.closed  # launched by the collector's next step
        fresh.launch()
        assert not np.array_equal(fresh.ready_obs, first)  # new start states, not the run's first ones
        rollout(fresh, ACTIONS[:20])
    finally:
        original.close()
        fresh.close()


def test_gym_vector_async_and_managers_without_the_protocol_fall_back():
    manager = GymVectorEnvManager([cartpole] * 2, dict(vector='async'))
    try:
        assert "vector='async'" in env_manager_state(manager)['fresh']
    finally:
        manager.close()
    assert 'has no state_dict' in env_manager_state(object())['fresh']


def test_a_snapshot_of_another_manager_kind_falls_back_to_fresh_episodes():
    serial, grouped = build('base_v2'), build('alternating')
    try:
        serial.launch()
        state = env_manager_state(serial)
        message = load_env_manager_state(grouped, state, env_step=8)
        assert 'does not load into AlternatingSampler' in message
        grouped.launch()
        rollout(grouped, ACTIONS[:5])
    finally:
        serial.close()
        grouped.close()


def test_envpool_has_no_snapshot():
    from ding.envs.env_manager.envpool_env_manager import EnvPoolEnvManager
    manager = EnvPoolEnvManager.__new__(EnvPoolEnvManager)  # EnvPool itself is not installed here
    assert 'EnvPool keeps its envs in C++' in env_manager_state(manager)['fresh']


class Learner:

    def state_dict(self):
        return {'w': torch.zeros(2)}

    def load_state_dict(self, sd):
        pass


def test_saver_with_unpicklable_envs_warns_and_resumes_with_fresh_episodes(tmp_path, caplog):
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware.run_state import RunStateSaver
    manager = build('subprocess', unpicklable)
    manager.launch()
    rollout(manager, ACTIONS[:10])
    ctx = OnlineRLContext()
    ctx.env_step, ctx.env_episode, ctx.train_iter = 40, 2, 10
    saver = RunStateSaver(str(tmp_path), Learner(), env=manager, every_env_step=1)  # no refusal
    with caplog.at_level('WARNING', logger='ding.run_state'):
        saver.save(ctx)
        saver.save(ctx)
    assert caplog.text.count('hold no collector env state') == 1 and 'cannot be pickled' in caplog.text
    manager.close()

    caplog.clear()
    resumed_env = build('subprocess', unpicklable)
    resumed = RunStateSaver(str(tmp_path), Learner(), env=resumed_env, every_env_step=1, resume=True)
    fresh_ctx = OnlineRLContext()
    try:
        with caplog.at_level('WARNING', logger='ding.run_state'):
            resumed.restore(fresh_ctx)
        assert (fresh_ctx.env_step, fresh_ctx.env_episode, fresh_ctx.train_iter) == (40, 2, 10)
        assert 'start fresh episodes at env_step=40' in caplog.text
        resumed_env.launch()  # as the collector does at its next step
        rollout(resumed_env, ACTIONS[:10])
    finally:
        resumed_env.close()
