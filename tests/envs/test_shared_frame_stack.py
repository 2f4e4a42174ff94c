"""Frame stacking in the subprocess workers' shared memory: `FrameStackWrapper.stack_into`
builds each stacked observation in the row the manager reads, and the data is the same as
the serial manager's."""
import pickle

import numpy as np
import pytest
from easydict import EasyDict

from ding.envs import BaseEnvManagerV2, DingEnvWrapper, SubprocessEnvManagerV2
from ding.envs.env_manager.shared_arrays import SharedArrays
from ding.envs.env_manager.subprocess_layout import array_spec
from ding.envs.env_manager.subprocess_worker import EnvWorker
from ding.envs.env_wrappers import FrameStackWrapper

from .mock_envs import CountingEnv

STACK = [EasyDict(type='frame_stack', kwargs=dict(n_frames=3))]


def stacked_env(terminate_at=4):
    return DingEnvWrapper(CountingEnv(terminate_at=terminate_at), cfg=dict(env_wrapper=STACK))


def test_without_a_target_each_observation_is_a_fresh_array():
    env = FrameStackWrapper(CountingEnv(terminate_at=50), n_frames=3)
    first, _ = env.reset(seed=0)
    seen = [first] + [env.step(0)[0] for _ in range(4)]
    # what the caller kept is not changed by later steps: t of the newest frame is 0, 1, 2, 3, 4
    assert [o[-1, 0] for o in seen] == [0, 1, 2, 3, 4]
    np.testing.assert_array_equal(seen[2][:, 0], [0, 1, 2])
    np.testing.assert_array_equal(env.frames[0], seen[-1][0])


def test_a_step_before_reset_says_so():
    with pytest.raises(RuntimeError, match='before reset'):
        FrameStackWrapper(CountingEnv(), n_frames=3).step(0)


def test_with_a_target_the_stack_is_built_in_it_and_returned_as_itself():
    plain = FrameStackWrapper(CountingEnv(terminate_at=50), n_frames=3)
    shared = FrameStackWrapper(CountingEnv(terminate_at=50), n_frames=3)
    rows = np.zeros((2, 3, 2), np.float32)  # two rows, as a worker alternates ready and next rows
    shared.stack_into(rows[0])
    a, b = plain.reset(seed=1)[0], shared.reset(seed=1)[0]
    assert np.shares_memory(b, rows) and np.array_equal(a, b)
    for t in range(6):
        out = rows[(t + 1) % 2]
        shared.stack_into(out)
        a, b = plain.step(0)[0], shared.step(0)[0]
        assert b is out and np.array_equal(a, b), t
    # a snapshot holds its own copy, not the shared row
    clone = pickle.loads(pickle.dumps(shared))
    assert not np.shares_memory(clone._stack, rows) and clone._out is None
    expected = plain.step(0)[0]
    np.testing.assert_array_equal(clone.step(0)[0], expected)
    # released from the target, the stack leaves the memory it was pointed at
    shared.stack_into(None)
    assert not np.shares_memory(shared._stack, rows)
    rows[:] = -1
    np.testing.assert_array_equal(shared.step(0)[0], expected)


def test_a_worker_stacks_into_its_shared_rows():
    envs = [stacked_env(), stacked_env()]
    shm = SharedArrays(array_spec(2, envs[0].observation_space, envs[0].action_space))
    worker = EnvWorker(envs, [0, 1])
    try:
        worker.attach((shm.handle, (3, 2), 'discrete', True))
        assert all(s is envs[j]._env for j, s in enumerate(worker.stackers))
        worker.seed([(0, 5, True), (1, 6, True)])
        worker.reset([(0, None), (1, None)])
        assert np.shares_memory(envs[0]._env._stack, worker.ready[0])
        shm['active'][:] = True
        for t in range(1, 6):
            worker.step([1, 2])
            assert np.shares_memory(envs[1]._env._stack, worker.next_obs[1]) or t % 4 == 0
            # t counts 1..4, then the episode (ended at 4, reset into ready) starts again at 1
            k = t if t <= 4 else t - 4
            np.testing.assert_array_equal(shm['next_obs'][0, :, 0], [max(0, k - 2), max(0, k - 1), k])
            if t == 4:
                np.testing.assert_array_equal(shm['ready_obs'][0, :, 0], [0, 0, 0])
    finally:
        worker.close()
        shm.close()


def test_an_env_with_more_layers_after_the_stack_is_copied_as_before():
    env = DingEnvWrapper(CountingEnv(), cfg=dict(env_wrapper=STACK + [EasyDict(type='clip_reward')]))
    shm = SharedArrays(array_spec(1, env.observation_space, env.action_space))
    worker = EnvWorker([env], [0])
    try:
        worker.attach((shm.handle, (3, 2), 'discrete', True))
        assert worker.stackers == [None]
    finally:
        worker.close()
        shm.close()


@pytest.mark.parametrize('cfg', [{}, dict(episode_num=1000)], ids=['eager_reset', 'reset_on_command'])
def test_subprocess_frame_stacks_match_the_serial_manager(cfg):
    fns = [lambda: stacked_env(terminate_at=4) for _ in range(4)]
    serial, sub = BaseEnvManagerV2(fns, cfg), SubprocessEnvManagerV2(fns, dict(cfg, worker_num=2))
    try:
        for m in (serial, sub):
            m.seed(7)
            m.launch()
        rng = np.random.default_rng(0)
        for _ in range(13):
            actions = rng.integers(0, 3, 4)
            a, b = serial.step_batch(actions), sub.step_batch(actions)
            for field in ('next_obs', 'reward', 'terminated', 'truncated'):
                assert np.array_equal(getattr(a, field), getattr(b, field)), field
            assert np.array_equal(serial.ready_obs, sub.ready_obs)
    finally:
        serial.close()
        sub.close()


def test_a_snapshot_mid_episode_resumes_the_stacks_exactly():
    fns = [lambda: stacked_env(terminate_at=6) for _ in range(2)]
    rng = np.random.default_rng(1)
    actions = rng.integers(0, 3, (12, 2))
    first, second = SubprocessEnvManagerV2(fns, dict(worker_num=2)), SubprocessEnvManagerV2(fns, dict(worker_num=2))
    try:
        first.seed(3)
        first.launch()
        for a in actions[:4]:
            first.step_batch(a)
        state = pickle.loads(pickle.dumps(first.state_dict()))  # what a checkpoint holds
        second.seed(3)
        second.launch()
        second.load_state_dict(state)
        for a in actions[4:]:
            x, y = first.step_batch(a), second.step_batch(a)
            assert np.array_equal(x.next_obs, y.next_obs) and np.array_equal(first.ready_obs, second.ready_obs)
    finally:
        first.close()
        second.close()
