"""No silent hangs: `step_timeout` / `reset_timeout` default to 60 s; a subprocess worker whose
env hangs past it is restarted with a warning; an env stepped in this process that hangs is
reported by a watchdog naming the env and how long it has waited."""
import logging
import os
import threading
import time
from functools import partial

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from ding.envs import DingEnvWrapper, create_env_manager
from ding.envs.env_manager.alternating_sampler import AlternatingSampler
from ding.envs.env_manager.base_env_manager import BaseEnvManagerV2
from ding.envs.env_manager.subprocess_env_manager import SubprocessEnvManagerV2
from ding.envs.env_manager.worker_inference import WorkerInferenceSampler

HANG_CAP_S = 30.0  # a hung env gives up after this, so a broken watchdog fails the test instead of hanging it


class HangsOnce(gymnasium.Env):
    """obs [t, 0, 0, 0], reward 1, episodes of 8 steps. Its `hang_in` ('step' or 'reset') call
    number `at` blocks until `release` is set (at most HANG_CAP_S), or sleeps `sleep_s` when
    no event is given (in a worker process; once in the whole test, told by `marker`)."""
    observation_space = spaces.Box(-np.inf, np.inf, shape=(4, ), dtype=np.float32)
    action_space = spaces.Discrete(2)

    def __init__(self, hang_in, at, release=None, sleep_s=0.0, marker=None):
        self.hang_in, self.at, self.release, self.sleep_s, self.marker = hang_in, at, release, sleep_s, marker
        self.calls, self.t = {'step': 0, 'reset': 0}, 0

    def _maybe_hang(self, kind):
        self.calls[kind] += 1
        if kind != self.hang_in or self.calls[kind] != self.at:
            return
        if self.release is not None:
            self.release.wait(HANG_CAP_S)
        elif not os.path.exists(self.marker):
            open(self.marker, 'w').close()
            time.sleep(self.sleep_s)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self._maybe_hang('reset')
        self.t = 0
        return np.zeros(4, dtype=np.float32), {}

    def step(self, action):
        self._maybe_hang('step')
        self.t += 1
        return np.array([self.t, 0, 0, 0], dtype=np.float32), 1.0, self.t >= 8, False, {}


class ReleaseOnWarning(logging.Handler):
    """Records the watchdog's warnings and sets `event` at the first one."""

    def __init__(self, event):
        super().__init__(logging.WARNING)
        self.event, self.messages = event, []

    def emit(self, record):
        self.messages.append(record.getMessage())
        self.event.set()


def watched_run(hang_in, timeout_key):
    release = threading.Event()
    handler = ReleaseOnWarning(release)
    logger = logging.getLogger('ding.envs.faults')
    logger.addHandler(handler)
    fns = [partial(DingEnvWrapper, HangsOnce(None, 0)), partial(DingEnvWrapper, HangsOnce(hang_in, 3, release))]
    env = create_env_manager({'type': 'base_v2', timeout_key: 0.2}, fns)
    try:
        env.launch()
        for _ in range(5):
            env.step_batch(np.zeros(2, dtype=np.int64))
        env.reset()
        env.reset()
    finally:
        env.close()
        logger.removeHandler(handler)
    return handler.messages


def test_a_hung_serial_step_is_reported_naming_the_env_and_the_wait():
    messages = watched_run('step', 'step_timeout')
    assert messages, 'the watchdog said nothing while env 1 hung'
    assert messages[0].startswith('BaseEnvManagerV2: env 1 has not returned from step for ')
    assert ' s (step_timeout=0.2 s); an env stepped in this process cannot be interrupted' in messages[0]
    assert 'it waits in ' in messages[0] and 'in wait' in messages[0]  # where: the Event.wait of _maybe_hang


def test_a_hung_serial_reset_is_reported_with_reset_timeout():
    messages = watched_run('reset', 'reset_timeout')
    assert messages and messages[0].startswith('BaseEnvManagerV2: env 1 has not returned from reset for ')
    assert '(reset_timeout=0.2 s)' in messages[0]


def test_no_watchdog_thread_is_left_after_close():
    # this manager's watchdog: another test's unclosed manager may still have one until its next wake-up
    before = set(threading.enumerate())
    env = create_env_manager({'type': 'base_v2', 'step_timeout': 0.2}, [partial(DingEnvWrapper, HangsOnce(None, 0))])
    env.launch()
    ours = [t for t in threading.enumerate() if t.name == 'ding-env-watchdog' and t not in before]
    assert len(ours) == 1
    env.close()
    assert not ours[0].is_alive()


@pytest.mark.parametrize('cls', [BaseEnvManagerV2, SubprocessEnvManagerV2, AlternatingSampler, WorkerInferenceSampler])
def test_timeouts_default_to_60_seconds(cls):
    cfg = cls.default_config()
    assert (cfg.step_timeout, cfg.reset_timeout) == (60.0, 60.0)


def test_a_worker_hanging_past_step_timeout_is_restarted_with_a_warning(tmp_path, caplog):
    fns = [partial(DingEnvWrapper, HangsOnce(None, 0)),
           partial(DingEnvWrapper, HangsOnce('step', 3, sleep_s=HANG_CAP_S, marker=str(tmp_path / 'hung')))]
    env = create_env_manager(dict(type='subprocess', worker_num=2, step_timeout=1.0), fns)
    try:
        with caplog.at_level(logging.WARNING, logger='ding.envs.faults'):
            env.launch()
            for _ in range(12):
                env.step_batch(np.zeros(2, dtype=np.int64))
    finally:
        env.close()
    assert env.worker_restarts == 1 and env.dropped_episodes == 1
    assert any('env 1 failed' in r.getMessage() and 'restarting its worker' in r.getMessage() for r in caplog.records)
