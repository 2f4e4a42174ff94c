"""Env managers over a plain object that speaks DI-engine's env protocol (`reset(**reset_param)
-> obs`, `step(action) -> BaseEnvTimestep`, `seed`, `close`; no BaseEnv, no gym Env), as
DI-engine's own env-manager tests build it: reset parameters reach the env, a reset that keeps
failing stops the manager (a supervisor closes), and the env's own attributes are readable."""
import functools

import numpy as np
import pytest
from gymnasium import spaces

from ding.envs import BaseEnvTimestep, DingEnvWrapper
from ding.envs.env_manager.base_env_manager import BaseEnvManagerV2, ManagerClosedError
from ding.envs.env_manager.env_faults import EnvFaultError
from ding.framework.supervisor import ChildType, EnvSupervisor

FAILS = {'count': 0}  # resets that raised, in this process (THREAD / serial manager)


class ProtocolEnv:
    """2-step episodes; `reset(stat=...)`: 'error' always raises, 'error_once' raises on every
    second such call to one env object (as DI-engine's FakeEnv); obs [stat code]."""
    observation_space = spaces.Box(-np.inf, np.inf, shape=(1, ), dtype=np.float32)
    action_space = spaces.Discrete(2)
    CODES = {None: 0., 'a': 1., 'b': 2., 'error_once': 3.}

    def __init__(self, tag: str) -> None:
        self.tag, self.t, self.stat, self.seeded, self._dead_once = tag, 0, None, None, False

    def reset(self, stat=None):
        if stat == 'error_once':
            self._dead_once = not self._dead_once
        if stat == 'error' or (stat == 'error_once' and not self._dead_once):
            FAILS['count'] += 1
            raise RuntimeError(f'{self.tag} cannot reset with {stat}')
        self.t, self.stat = 0, stat
        return np.full(1, self.CODES[stat], dtype=np.float32)

    def step(self, action):
        self.t += 1
        return BaseEnvTimestep(np.zeros(1, dtype=np.float32), np.ones(1, dtype=np.float32), self.t >= 2, {})

    def seed(self, seed):
        self.seeded = seed

    def close(self):
        pass


def env_fns(n=2):
    return [functools.partial(ProtocolEnv, f'env{i}') for i in range(n)]


def test_reset_parameters_reach_a_protocol_env_through_the_wrapper():
    env = DingEnvWrapper(ProtocolEnv('x'))
    env.seed(7)
    assert env.reset(stat='b').tolist() == [2.0]
    assert env.env.stat == 'b' and env.env.seeded == 7  # no seed= in its reset: seeded through seed()


def test_serial_manager_retries_a_failed_reset_with_its_parameters():
    manager = BaseEnvManagerV2(env_fns(), BaseEnvManagerV2.default_config())
    manager.launch(reset_param={0: {'stat': 'a'}, 1: {'stat': 'b'}})
    assert manager.ready_obs.tolist() == [[1.0], [2.0]]
    manager.reset({0: {'stat': 'error_once'}})
    assert manager.worker_restarts == 0
    # the second such reset fails: env 0 is rebuilt and reset again with the same parameters,
    # not without them (the rebuilt env's first 'error_once' succeeds)
    manager.reset({0: {'stat': 'error_once'}})
    assert manager.ready_obs.tolist() == [[3.0], [2.0]] and manager.worker_restarts == 1
    manager.close()


def test_serial_manager_stops_when_a_reset_keeps_failing():
    cfg = dict(BaseEnvManagerV2.default_config(), max_retry=2)
    manager = BaseEnvManagerV2(env_fns(), cfg)
    before = FAILS['count']
    with pytest.raises(EnvFaultError, match='cannot reset with error'):
        manager.launch(reset_param={0: {'stat': 'error'}})
    assert FAILS['count'] - before == 3  # the first try and max_retry retries, each with the parameter
    manager.close()


@pytest.mark.parametrize('type_', [ChildType.THREAD, ChildType.PROCESS])
def test_supervisor_closes_when_an_env_keeps_failing_and_reads_env_attributes(type_):
    sup = EnvSupervisor(type_=type_, env_fn=env_fns(), max_retry=1)
    with pytest.raises(EnvFaultError):
        sup.launch(reset_param={i: {'stat': 'error'} for i in range(2)})
    assert sup.closed
    for error in (RuntimeError, AssertionError):  # ding's and DI-engine's answer to a closed supervisor
        with pytest.raises(error, match='closed'):
            sup.reset({0: {'stat': 'a'}})
        with pytest.raises(error, match='closed'):
            sup.step({0: 0})
    sup.launch(reset_param={i: {'stat': 'a'} for i in range(2)})
    try:
        assert sup.tag == ['env0', 'env1']  # the protocol env's own attribute, through the wrapper
        assert sup.stat == ['a', 'a'] and len(sup.step({0: 1, 1: 1})) == 2
    finally:
        sup.close()


def test_a_closed_plain_manager_is_stepped_with_manager_closed_error():
    manager = BaseEnvManagerV2(env_fns(), BaseEnvManagerV2.default_config())
    with pytest.raises(ManagerClosedError, match='not launched'):
        manager.step_batch(np.zeros(2, dtype=np.int64))
