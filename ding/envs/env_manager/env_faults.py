"""Env faults: what every env manager does when an env raises (or its worker dies or hangs).

Why one place: the serial, subprocess, alternating, worker-inference and gym-vector managers
must behave alike, in a collector and in an evaluator:
- the failing env (or the worker / vector env holding it) is rebuilt and reset; each
  restart is logged at WARNING on `ding.envs.faults`, naming the env, the exception and
  the counts;
- the episodes it had in flight are dropped: never reported as transitions (the row of the
  step that failed is flagged `info['dropped_episode']`, episode return NaN, and callers
  skip it), counted in `dropped_episodes`;
- an env that fails more than `max_retry` times in a row stops the run with
  `EnvFaultError`, naming the env and its exception. "In a row" means with no completed
  episode of that env in between, so an env that fails in every episode stops the run in
  bounded time instead of being restarted forever.
"""
import logging
import time
import traceback
from contextlib import suppress
from typing import Any, Callable, Iterable, Optional, Sequence, Tuple

import numpy as np

from ding.envs.base_env import BaseEnv

logger = logging.getLogger('ding.envs.faults')

DROPPED = 'dropped_episode'  # info key of a row whose episode a restart dropped


class EnvFaultError(RuntimeError):
    """An env kept failing: more than `max_retry` failures with no completed episode between."""


def describe(err: BaseException) -> str:
    """The traceback of `err` as text (its last line names the exception)."""
    return ''.join(traceback.format_exception(type(err), err, err.__traceback__))[-2000:]


def last_line(text: str) -> str:
    """`RuntimeError: env broke on purpose` out of a traceback text."""
    lines = [line for line in (text or '').strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else 'unknown failure'


class FailStreaks:
    """Per-env count of failures since that env last completed an episode, and the check
    against `max_retry`. `who` names the manager in messages; env ids are shown plus `offset`
    (the first global id of a group inside a `GroupedEnvManager`). `wait_s` (config
    `retry_waiting_time`): the pause before each restart, for envs whose failures are
    transient (a simulator licence, a port still held)."""

    def __init__(self, who: str, env_num: int, max_retry: int, wait_s: float = 0.0) -> None:
        self.who, self.max_retry, self.offset, self.wait_s = who, int(max_retry), 0, float(wait_s)
        self.streak = np.zeros(env_num, dtype=np.int64)

    def label(self, env_ids: Sequence[int]) -> str:
        """'env 3' or 'envs [2, 3]', in global ids."""
        ids = [int(i) + self.offset for i in env_ids]
        return f'env {ids[0]}' if len(ids) == 1 else f'envs {ids}'

    def failed(self, env_ids: Sequence[int], text: str, restarts: int, restarting: str) -> None:
        """Count one failure of `env_ids` (the failing env, or every env of a worker when the
        failure names none); raise `EnvFaultError` past `max_retry`, else log the restart
        (`restarts`: the manager's restarts so far, this one included; `restarting`: what is
        rebuilt, e.g. 'its worker (envs [0, 1])')."""
        ids = [int(i) for i in env_ids]
        self.streak[ids] += 1
        in_a_row = int(self.streak[ids].max())
        envs = self.label(ids)
        if in_a_row > self.max_retry:
            raise EnvFaultError(f'{self.who}: {envs} failed {in_a_row} times in a row with no completed episode '
                                f'between (max_retry={self.max_retry}); last failure: {last_line(text)}\n{text}')
        logger.warning('%s: %s failed: %s; restarting %s (restart %d of this manager, %d in a row, max_retry=%d); '
                       'any episode in flight is dropped', self.who, envs, last_line(text), restarting, restarts,
                       in_a_row, self.max_retry)
        if self.wait_s > 0:
            time.sleep(self.wait_s)

    def completed(self, env_ids: Iterable[int]) -> None:
        """These envs completed an episode: their failures no longer count as in a row."""
        self.streak[list(env_ids)] = 0


def fault_counts(env: Any) -> Tuple[int, int]:
    """(restarts, dropped episodes) of an env manager so far; (0, 0) for one without them."""
    return int(getattr(env, 'worker_restarts', 0)), int(getattr(env, 'dropped_episodes', 0))


def dropped_rows(result: Any, ended: np.ndarray) -> np.ndarray:
    """Of the env ids `ended` (episodes that ended in `result`, an `EnvStepBatch`), those
    whose episode was dropped by a restart rather than completed."""
    infos = result.infos
    return np.array([i for i in ended if infos[i] and infos[i].get(DROPPED)], dtype=np.int64)


# --- envs stepped in this process (the serial manager) ------------------------------------------
def step_each(manager: Any, acts: Sequence[Any], stepped: list, error: Optional[BaseException]) -> tuple:
    """The serial manager's slow path: envs `0 .. len(stepped) - 1` gave `stepped` and env
    `len(stepped)` raised `error` (None: nothing stepped yet); the other ready envs are stepped
    one by one. Every env that raised is rebuilt; its row keeps the obs acted on, reward 0,
    truncated, flagged `info['dropped_episode']` (callers drop it), and `dropped_episodes`
    counts it. Envs that are not ready keep their observation, reward 0, no end."""
    n = manager._env_num
    obs, rew, term, trunc, infos = list(manager._obs), [0.0] * n, [False] * n, [False] * n, [{} for _ in range(n)]
    for i, result in enumerate(stepped):
        obs[i], rew[i], term[i], trunc[i], infos[i] = result
    failed = {len(stepped): describe(error)} if error is not None else {}
    start = len(stepped) + len(failed)
    for i in manager._active_ids:
        if i < start:
            continue
        try:
            obs[i], rew[i], term[i], trunc[i], infos[i] = manager._gym_steps[i](acts[i])
        except Exception as err:  # noqa: BLE001 - an env fault, handled below
            failed[i] = describe(err)
    for i, text in failed.items():
        restart_serial_env(manager, i, text)
        obs[i], rew[i], term[i], trunc[i] = manager._obs[i], 0.0, False, True
        infos[i] = {DROPPED: True, 'env_error': text}
    manager._dropped_now = sorted(failed)
    manager.dropped_episodes += len(failed)
    return obs, rew, term, trunc, infos


def make_env(fn: Callable[[], Any]) -> BaseEnv:
    """The env `fn` makes, wrapped as a ding env when it is a gymnasium / gym one (a serial
    manager builds its envs with it at launch, and again when one is restarted)."""
    from ding.envs.ding_env_wrapper import DingEnvWrapper  # it imports env managers
    env = fn()
    return env if isinstance(env, BaseEnv) else DingEnvWrapper(env)


def restart_serial_env(manager: Any, env_id: int, text: str) -> None:
    """Rebuild env `env_id` of a serial manager from its env_fn, seeded as at the start of the
    run, and reset it; its reset obs waits in `manager._restarted_obs`. A rebuild that fails
    is one more failure in a row."""
    while True:
        manager._streaks.failed([env_id], text, manager.worker_restarts + 1, 'it from its env_fn')
        manager.worker_restarts += 1
        try:
            close_quietly(manager._envs[env_id])
            env = manager._envs[env_id] = make_env(manager._env_fn[env_id])
            manager._gym_steps[env_id] = env.gym_step
            seed = manager._seeds[env_id] if manager._seeds is not None else None
            if seed is not None:
                env.seed(seed, manager._dynamic_seed)
            manager._restarted_obs[env_id] = env.gym_reset()[0]
            return
        except Exception as err:  # noqa: BLE001 - the rebuilt env failed too
            text = describe(err)


def close_quietly(env: Any) -> None:
    """Close an env that is discarded either way: a broken env may fail to close."""
    with suppress(Exception):
        env.close()
