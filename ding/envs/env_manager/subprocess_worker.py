"""The loop a subprocess env worker runs: it owns a few envs and steps them on a signal.

Protocol over the worker's pipe (the manager side is `worker_pool.py`):
- hot path: the manager writes actions into shared memory and sends `b'S'` (or `b'P'` +
  a pickled action list for spaces that are not arrays); the worker steps its active envs,
  writes next obs / reward / end flags (and, when the manager asked for eager resets, the
  reset obs of finished envs) into shared memory, and replies `b''`, or a pickled
  `('info', {env_id: info})` when some env returned a non-empty info;
- control: a pickled tuple `(command, payload)`, answered by a pickled `('ok', result)`;
- any failure answers `('error', kind, text)`: kind 'value' for a wrong observation (the
  manager raises it), 'env' for an exception inside the env (the manager restarts us), then
  with the global id of the env that raised when known.
"""
import pickle
import signal
from typing import Any, Dict, List, Sequence

import cloudpickle
import numpy as np

from ding.envs.env_manager.env_faults import close_quietly, describe, make_env
from ding.envs.env_manager.obs_stack import check_obs
from ding.envs.env_manager.shared_arrays import SharedArrays
from ding.envs.env_manager.shared_obs import obs_arrays

STEP, STEP_PICKLED = b'S', b'P'


class ObservationError(ValueError):
    """An env returned an observation of the wrong shape: a bug to report, not a fault to
    restart from."""


def checked_obs(env_id: int, obs: Any, shape: tuple) -> np.ndarray:
    try:
        return check_obs(env_id, obs, shape)
    except ValueError as err:
        raise ObservationError(str(err)) from None


class EnvWorker:
    """Steps `envs` (global ids `env_ids`) against the shared arrays of the manager."""

    def __init__(self, envs: Sequence[Any], env_ids: Sequence[int]) -> None:
        self.ids = list(env_ids)
        self.lo, self.hi = self.ids[0], self.ids[-1] + 1
        self.shm = None
        self.set_envs(envs)

    def set_envs(self, envs: Sequence[Any]) -> None:
        """Step these envs from now on (at start, and when a snapshot replaces them)."""
        self.envs = list(envs)
        self.steps = [env.gym_step for env in self.envs]
        self.stackers = [None] * len(self.envs)
        if self.shm is not None:
            self.bind_frame_stacks()

    def bind_frame_stacks(self) -> None:
        """Envs whose frame stack is the last layer build their observations in the shared rows."""
        self.stackers = [shared_frame_stack(env, self.next_obs) for env in self.envs]
        if any(s is not None for s in self.stackers):  # row views made once: the hot path hands out the same objects
            self.next_rows = {i: self.next_obs[i] for i in self.ids}
            self.ready_rows = {i: self.ready[i] for i in self.ids}

    def release_frame_stacks(self) -> None:
        """Frame stacks move out of the shared rows (before the memory goes)."""
        for stacker in self.stackers:
            if stacker is not None:
                stacker.stack_into(None)
        self.next_rows = self.ready_rows = {}

    # --- control commands ---------------------------------------------------------------
    def attach(self, payload: tuple) -> None:
        handle, self.obs_shape, self.action_kind, self.eager_reset = payload
        if self.shm is not None:
            self.release_frame_stacks()
            self.shm.close()
        self.shm = SharedArrays(*handle)
        a = self.shm.arrays
        self.next_obs, self.ready, self.reward = obs_arrays(a, 'next_obs'), obs_arrays(a, 'ready_obs'), a['reward']
        self.terminated, self.truncated = a['terminated'], a['truncated']
        self.reset_flag, self.active, self.action = a['reset_flag'], a['active'], a['action']
        self.bind_frame_stacks()

    def seed(self, payload: List[tuple]) -> None:
        for j, seed, dynamic in payload:
            self.envs[j].seed(seed, dynamic)

    def reset(self, payload: List[tuple]) -> None:
        """Reset local envs `j` (with the env's reset kwargs when given) into `ready_obs`."""
        for j, param in payload:
            env = self.envs[j]
            if self.stackers[j] is not None:
                self.stackers[j].stack_into(self.ready_rows[self.ids[j]])
            try:
                obs = env.reset(**param) if param else env.gym_reset()[0]
            except Exception as err:  # name the env that raised
                err.ding_env_id = self.ids[j]
                raise
            self.ready[self.ids[j]] = checked_obs(self.ids[j], obs, self.obs_shape)
            self.reset_flag[self.ids[j]] = 1

    def snapshot_envs(self, payload: Any = None) -> tuple:
        """(one pickle per env, None, actor RNG states), or (None, why, None): exact resume."""
        from ding.envs.env_manager.snapshot import worker_snapshot
        return worker_snapshot(self)

    def load_envs(self, payload: tuple) -> None:
        """Replace the envs by pickled ones (what `snapshot_envs` gave, maybe another run's)."""
        from ding.envs.env_manager.snapshot import worker_load
        worker_load(self, payload)

    def render(self, render_mode: str) -> List[Any]:
        """A frame of each of this worker's envs (`ready_imgs`)."""
        from ding.envs.env_manager.env_frames import render_frame
        return [render_frame(env, render_mode) for env in self.envs]

    # --- the hot path ---------------------------------------------------------------------
    def step(self, actions: Any = None) -> Any:
        lo, hi = self.lo, self.hi
        if actions is None:
            chunk = self.action[lo:hi]
            actions = chunk.tolist() if self.action_kind == 'discrete' else chunk.copy()
        active = self.active
        infos = None
        try:
            for j, step in enumerate(self.steps):
                i = lo + j
                if not active[i]:
                    continue
                stacker = self.stackers[j]
                if stacker is not None:
                    stacker.stack_into(self.next_rows[i])
                obs, reward, terminated, truncated, info = step(actions[j])
                if stacker is None or obs is not self.next_rows[i]:
                    if np.shape(obs) != self.obs_shape:
                        checked_obs(i, obs, self.obs_shape)  # raises naming the env
                    self.next_obs[i] = obs
                self.reward[i] = reward
                self.terminated[i] = terminated
                self.truncated[i] = truncated
                if info:
                    infos = infos or {}
                    infos[i] = info
                if self.eager_reset and (terminated or truncated):
                    if stacker is not None:
                        stacker.stack_into(self.ready_rows[i])
                    self.ready[i] = checked_obs(i, self.envs[j].gym_reset()[0], self.obs_shape)
                    self.reset_flag[i] = 1
        except ObservationError:
            raise
        except Exception as err:  # name the env that raised, for the manager's log and fail streaks
            err.ding_env_id = lo + j
            raise
        return infos

    def close(self, payload: Any = None) -> None:
        for env in self.envs:
            close_quietly(env)  # closing must go on for the other envs
        if self.shm is not None:
            self.release_frame_stacks()
            self.shm.close()


def shared_frame_stack(env: Any, next_obs: Any) -> Any:
    """The env's `FrameStackWrapper` when it is the layer the worker steps (so what it returns
    is what the worker would copy into shared memory) and observations are one shared array:
    it then stacks straight into the shared rows. None otherwise."""
    from ding.envs.env_wrappers.frame_wrappers import FrameStackWrapper
    inner = getattr(env, '_env', None)
    if not isinstance(inner, FrameStackWrapper) or not isinstance(next_obs, np.ndarray):
        return None
    return inner if getattr(env, 'gym_step', None) == inner.step else None


def worker_main(conn: Any, env_fn_bytes: bytes, env_ids: Sequence[int], worker_cls: type = EnvWorker) -> None:
    """Process entry: build the envs, report their spaces, then serve commands until
    'close' or until the manager's end of the pipe goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the manager's to handle
    try:
        worker = worker_cls([make_env(fn) for fn in cloudpickle.loads(env_fn_bytes)], env_ids)
        env = worker.envs[0]
        conn.send(('ok', (env.observation_space, env.action_space, getattr(env, 'reward_space', None))))
    except Exception as err:  # noqa: BLE001 - reported to the manager
        conn.send(('error', 'env', describe(err)))
        return
    _serve(conn, worker)


def _serve(conn: Any, worker: EnvWorker) -> None:
    # the control commands a worker class serves (a subclass may add to `extra_commands`)
    commands = ['attach', 'seed', 'reset', 'close', 'snapshot_envs', 'load_envs', 'render']
    commands += getattr(worker, 'extra_commands', ())
    handlers: Dict[str, Any] = {name: getattr(worker, name) for name in commands}
    while True:
        try:
            msg = conn.recv_bytes()
        except (EOFError, OSError):
            worker.close()
            return
        try:
            if msg == STEP or msg[:1] == STEP_PICKLED:
                # pickled actions come for every env of the manager: this worker's are lo:hi
                infos = worker.step() if msg == STEP else worker.step(pickle.loads(msg[1:])[worker.lo:worker.hi])
                conn.send_bytes(b'' if infos is None else pickle.dumps(('info', infos)))
                continue
            command, payload = pickle.loads(msg)
            result = handlers[command](payload)
            conn.send_bytes(pickle.dumps(('ok', result)))
            if command == 'close':
                return
        except ObservationError as err:
            conn.send_bytes(pickle.dumps(('error', 'value', str(err))))
        except Exception as err:  # noqa: BLE001 - the manager restarts this worker
            conn.send_bytes(pickle.dumps(('error', 'env', describe(err), getattr(err, 'ding_env_id', None))))

