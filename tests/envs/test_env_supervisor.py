"""DI-engine's EnvSupervisor calls on top of our managers: `step(block=False)` + `recv()`, resets
handed out as payloads, failed steps marked as DI-engine marks them, env states, the envs'
own attributes; in this process (THREAD) and in workers (PROCESS)."""
import functools

import numpy as np
import pytest

from ding.envs import BaseEnv, BaseEnvTimestep, DingEnvWrapper
from ding.envs.env_manager.env_state import EnvState
from ding.framework.supervisor import ChildType, EnvSupervisor
from tests.envs.mock_envs import EPISODE_LEN, FAIL_AT, CountingEnv, make_faulty_episodes


class NamedEnv(BaseEnv):
    """A DI-engine-style env with attributes of its own; 2-step episodes; obs [t]."""
    from gymnasium import spaces
    observation_space = spaces.Box(-np.inf, np.inf, shape=(1, ), dtype=np.float32)
    action_space = spaces.Discrete(2)
    reward_space = spaces.Box(-np.inf, np.inf, shape=(1, ), dtype=np.float32)

    def __init__(self, name: str) -> None:
        super().__init__(None)
        self.name, self.t, self.replay_path = name, 0, None

    def reset(self):
        self.t = 0
        return np.zeros(1, dtype=np.float32)

    def step(self, action):
        self.t += 1
        return BaseEnvTimestep(np.full(1, self.t, dtype=np.float32), np.ones(1, dtype=np.float32), self.t >= 2, {})

    def seed(self, seed, dynamic_seed=True):
        pass

    def close(self):
        pass

    def enable_save_replay(self, replay_path):
        self.replay_path = replay_path


def counting(terminate_at: int = 3):
    return DingEnvWrapper(CountingEnv(terminate_at=terminate_at))


def faulty_first(marker: str) -> list:
    """Three 8-step envs; env 0 raises once, on its FAIL_AT-th step."""
    return [functools.partial(make_faulty_episodes, 'once' if i == 0 else None, marker) for i in range(3)]


def play_async(sup) -> dict:
    """Drive every env by recv(): act on each reset / unfinished step until all are DONE."""
    steps = {i: [] for i in range(sup.env_num)}
    sup.launch(block=False)
    while not sup.done:
        payload = sup.recv()
        if payload.method == 'step':
            steps[payload.proc_id].append(payload.data)
        if sup.env_states[payload.proc_id] == EnvState.RUN:
            sup.step({payload.proc_id: 0}, block=False)
    return steps


def check_async_episodes(type_: ChildType) -> None:
    sup = EnvSupervisor(type_=type_, env_fn=[counting] * 3, auto_reset=False)
    sup.seed(0)
    try:
        assert sup.env_states == {i: EnvState.VOID for i in range(3)}
        steps = play_async(sup)
        # one step payload per env step, in order, each env stepped to its episode's end
        for i, ts in steps.items():
            assert [float(t.obs[0]) for t in ts] == [1.0, 2.0, 3.0] and [t.done for t in ts] == [False, False, True]
            assert all(t.env_id == i for t in ts) and float(ts[0].reward[0]) == 1.0
        assert sup.env_states == {i: EnvState.DONE for i in range(3)} and sup.env_state_done(1)
        with pytest.raises(RuntimeError, match='nothing to receive'):
            sup.recv()
        # reset(block=False) of some envs hands out their reset obs only
        sup.reset({1: {}}, block=False)
        assert [(p.method, p.proc_id, float(p.data[0])) for p in [sup.recv()]] == [('reset', 1, 0.0)]
        assert sup.env_states[1] == EnvState.RUN and sup.env_states[0] == EnvState.DONE
        # a blocking step of the env that is running still answers with timesteps
        assert [t.env_id for t in sup.step({1: 2})] == [1]
    finally:
        sup.close()
    assert sup.closed and sup.env_states[0] == EnvState.VOID


def test_thread_supervisor_async_episodes():
    check_async_episodes(ChildType.THREAD)


def test_thread_supervisor_marks_failed_steps_and_hands_out_resets(tmp_path):
    marker = str(tmp_path / 'failed')
    sup = EnvSupervisor(type_=ChildType.THREAD, env_fn=faulty_first(marker), max_retry=2)
    try:
        sup.launch()
        for _ in range(FAIL_AT - 1):
            assert not any(t.info.get('abnormal') for t in sup.step([0, 0, 0]))
        # blocking: the failed step is a timestep marked as DI-engine marks it; env 0 starts afresh
        failed = sup.step([0, 0, 0])[0]
        assert failed.done and failed.info['abnormal'] and 'env broke on purpose' in failed.info['err']
        assert float(sup.ready_obs[0][0]) == 0.0 and sup.env_states[0] == EnvState.RUN
        for _ in range(EPISODE_LEN - FAIL_AT - 1):
            sup.step([0, 0, 0])
        # through recv: envs 1 and 2 end their episodes on this step (auto-reset: a step then a
        # reset answer each); env 0 steps normally (its fault happened once)
        sup.step([0, 0, 0], block=False)
        got = [(p.proc_id, p.method) for p in (sup.recv() for _ in range(5))]
        assert sorted(got) == [(0, 'step'), (1, 'reset'), (1, 'step'), (2, 'reset'), (2, 'step')]
        assert got.index((1, 'step')) < got.index((1, 'reset'))
        with pytest.raises(RuntimeError, match='nothing to receive'):
            sup.recv()
    finally:
        sup.close()


def test_thread_supervisor_reads_the_envs_own_attributes():
    sup = EnvSupervisor(type_=ChildType.THREAD, env_fn=[lambda i=i: NamedEnv(f'env{i}') for i in range(2)])
    with pytest.raises(AttributeError, match='launch'):
        sup.name
    sup.launch()
    try:
        sup.step([1, 1])
        assert sup.name == ['env0', 'env1'] and sup.t == [1, 1] and sup.get_child_attr(1, 'name') == 'env1'
        sup.enable_save_replay('videos')
        assert sup.replay_path == ['videos', 'videos']
        with pytest.raises(AttributeError, match="no attribute 'not_there'"):
            sup.not_there
        assert sup.method_name_list == ['reset', 'step', 'seed', 'close', 'enable_save_replay']
    finally:
        sup.shutdown()


@pytest.mark.slow  # starts worker processes (~2 s)
def test_process_supervisor_async_faults_and_attributes(tmp_path):
    check_async_episodes(ChildType.PROCESS)
    sup = EnvSupervisor(type_=ChildType.PROCESS, env_fn=faulty_first(str(tmp_path / 'failed')), max_try=2,
                        step_timeout=60, reset_timeout=60, retry_type='renew',
                        worker_num=3)  # one env per worker: a restart drops only the failing env's episode
    # DI-engine's retry and timeout keys reach the manager (max_try is DI-engine's max_retry)
    assert (sup._cfg.max_retry, sup._cfg.step_timeout, sup._cfg.reset_timeout) == (2, 60, 60)
    try:
        sup.launch()
        for _ in range(FAIL_AT - 1):
            sup.step([0, 0, 0])
        sup.step([0, 0, 0], block=False)  # sent to the workers at once
        got = [sup.recv() for _ in range(3)]
        # env 0 raised in its worker: no step answer, the reset obs of the rebuilt env instead
        assert sorted((p.proc_id, p.method) for p in got) == [(0, 'reset'), (1, 'step'), (2, 'step')]
        assert float([p for p in got if p.proc_id == 0][0].data[0]) == 0.0
        assert sup.worker_restarts == 1 and sup.dropped_episodes == 1
        # the envs' own attributes and methods, read in the workers
        assert sup.get_child_attr(2, 'observation_space').shape == (4, )
        assert [e.t for e in sup.env] == [0, FAIL_AT, FAIL_AT]  # each DingEnvWrapper's gymnasium env, pickled back
        with pytest.raises(NotImplementedError, match='cannot save replays'):
            sup.enable_save_replay('videos')  # the env's own error; no worker restart for it
        with pytest.raises(AttributeError, match="no attribute 'not_there'"):
            sup.not_there
        assert sup.worker_restarts == 1 and [float(t.obs[0]) for t in sup.step([0, 0, 0])] == [1.0, 6.0, 6.0]
    finally:
        sup.close()
