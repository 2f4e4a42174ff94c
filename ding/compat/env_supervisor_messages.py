"""DI-engine's EnvSupervisor calls beyond an env manager's, on top of the manager's `step_batch`.

- `step(actions, block=False)` returns at once; `recv()` then hands out one `RecvPayload` per
  env: `method='step'` with the env's timestep in `data`, and, after an episode ends and the
  env is reset (auto-reset, or a step that failed and was dropped), `method='reset'` with the
  obs to act on next. `launch` / `reset` with `block=False` hand out their reset obs the same way.
  In worker processes a step over every ready env is sent before `step` returns, so the envs run
  while the caller works; any other step runs when it is received.
- A step whose env raised is answered as DI-engine does: blocking, by a timestep with
  `info['abnormal']` and `info['err']`; through `recv`, by the env's fresh reset obs only.
  The env itself is rebuilt from its env_fn (env_faults.py), whatever `retry_type` says.
- `env_states`, `env_state_done`, `get_child_attr`, `sup.<env attribute>` (one value per env),
  `enable_save_replay`, `close(timeout)` / `shutdown(timeout)`.

Mixed in before the manager class: `step`, `launch`, `reset` and `close` extend the manager's.
"""
import collections
import contextlib
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from ding.envs.env_manager.base_env_manager import ManagerClosedError
from ding.envs.env_manager.env_faults import EnvFaultError
from ding.envs.env_manager.env_state import EnvState
from ding.compat.supervisor_payloads import RecvPayload


class SupervisorMessages:
    _sends_steps_ahead = False  # the process supervisor: steps go to the workers before `step` returns

    def _init_messages(self) -> None:
        self._received: collections.deque = collections.deque()
        self._step_in_flight = None  # (env ids, their action rows, or None when already sent)

    # --- stepping -------------------------------------------------------------------------
    def step(self, actions: Union[Mapping[int, Any], Sequence[Any]], block: bool = True) -> Optional[List[Any]]:
        """{env_id: action} (only those envs step) or one action per ready env. `block`: the
        timesteps; else None, and `recv()` hands them out."""
        self._check_running()  # before reading the actions: a closed supervisor says so first
        with self._closing_on_env_fault():
            self._finish_step_in_flight()
            ids, rows = self._action_rows(actions)
            if block:
                return self._supervised_timesteps(ids, self._step_rows(ids, rows))
            if self._sends_steps_ahead and ids == list(self._active_ids):
                self.step_batch_async(rows)
                rows = None
            self._step_in_flight = (ids, rows)
            return None

    def recv(self, ignore_err: bool = False) -> RecvPayload:
        """The next answer to a `step` / `reset` / `launch` made with `block=False`. Failed
        steps are never handed out (their env's reset obs is), so `ignore_err` changes nothing."""
        if not self._received:
            with self._closing_on_env_fault():
                self._finish_step_in_flight()
        if not self._received:
            raise RuntimeError(f'{type(self).__name__}.recv(): nothing to receive; call step(actions, block=False), '
                               'reset(block=False) or launch(block=False) first')
        return self._received.popleft()

    def _finish_step_in_flight(self) -> None:
        if self._step_in_flight is None:
            return
        (ids, rows), self._step_in_flight = self._step_in_flight, None
        result = self.step_batch_wait() if rows is None else self._step_rows(ids, rows)
        for ts in self._supervised_timesteps(ids, result):
            if not ts.info.get('abnormal'):
                self._received.append(RecvPayload(proc_id=ts.env_id, method='step', data=ts))
            if ts.done and self._active[ts.env_id]:  # reset already: the next obs to act on
                self._received.append(RecvPayload(proc_id=ts.env_id, method='reset', data=self._obs[ts.env_id]))

    def _supervised_timesteps(self, ids: List[int], result: Any) -> List[Any]:
        out = self._timesteps(ids, result)
        for ts in out:
            if ts.info.get('dropped_episode'):  # DI-engine's marks of a step that raised
                ts.info['abnormal'] = True
                ts.info['err'] = ts.info.get('env_error', 'the env failed')
        return out

    # --- life cycle -----------------------------------------------------------------------
    def launch(self, reset_param: Optional[Mapping[int, dict]] = None, block: bool = True) -> None:
        with self._closing_on_env_fault():
            super().launch(_by_env_id(reset_param))
        if not block:
            self._hand_out_resets(range(self.env_num))

    def reset(self, reset_param: Union[None, Mapping[int, dict], Sequence[dict]] = None, block: bool = True) -> None:
        """Reset every env, or those keyed in `reset_param`. Unlike a plain manager's, a closed
        supervisor is not launched by `reset` (as in DI-engine): call `launch` first."""
        if self._closed:
            raise ManagerClosedError(f'{type(self).__name__} is closed: launch() it before reset()')
        self._finish_step_in_flight()
        reset_param = _by_env_id(reset_param)
        with self._closing_on_env_fault():
            super().reset(reset_param)
        if not block:
            self._hand_out_resets(sorted(reset_param) if reset_param else range(self.env_num))

    @contextlib.contextmanager
    def _closing_on_env_fault(self) -> Iterator[None]:
        """An env that failed past `max_retry` (EnvFaultError) closes the supervisor before the
        error goes on, as DI-engine's does: `closed` is then True and `launch` starts afresh."""
        try:
            yield
        except EnvFaultError:
            self.close()
            raise

    def _hand_out_resets(self, env_ids: Sequence[int]) -> None:
        for i in env_ids:
            self._received.append(RecvPayload(proc_id=int(i), method='reset', data=self._obs[int(i)]))

    def close(self, timeout: Optional[float] = None) -> None:
        """Close every env; answers not yet received are dropped. (`timeout`: DI-engine's
        argument; the manager's own close already bounds how long a worker may take.)"""
        self._init_messages()
        super().close()

    def shutdown(self, timeout: Optional[float] = None) -> None:
        self.close(timeout)

    # --- state ----------------------------------------------------------------------------
    @property
    def env_states(self) -> Dict[int, EnvState]:
        """VOID while closed; RUN for an env that takes actions; DONE for one that finished
        its episodes (`episode_num`, or any episode with `auto_reset=False`)."""
        if self._closed:
            return {i: EnvState.VOID for i in range(self.env_num)}
        return {i: EnvState.RUN if self._active[i] else EnvState.DONE for i in range(self.env_num)}

    def env_state_done(self, env_id: int) -> bool:
        return self.env_states[env_id] == EnvState.DONE

    @property
    def method_name_list(self) -> List[str]:
        return ['reset', 'step', 'seed', 'close', 'enable_save_replay']

    # --- the envs' own attributes ---------------------------------------------------------
    def get_child_attr(self, proc_id: int, key: str) -> Any:
        """Attribute `key` of env `proc_id`."""
        return self._env_values(key, [int(proc_id)])[0]

    def enable_save_replay(self, replay_path: Union[str, Sequence[str]]) -> None:
        """Each env's `enable_save_replay(path)`: one path for all, or one per env."""
        paths = [replay_path] * self.env_num if isinstance(replay_path, str) else list(replay_path)
        if len(paths) != self.env_num:
            raise ValueError(f'enable_save_replay needs one path or {self.env_num}, got {len(paths)}')
        for i, path in enumerate(paths):
            self._env_values('enable_save_replay', [i], call_args=(path, ))

    def __getattr__(self, key: str) -> List[Any]:
        """`sup.name`: attribute `name` of every env, in env order (DI-engine's supervisor)."""
        if key.startswith('_'):
            raise AttributeError(key)
        return self._env_values(key, list(range(self.env_num)))

    def _env_values(self, key: str, env_ids: List[int], call_args: Optional[tuple] = None) -> List[Any]:
        if self._closed:
            raise AttributeError(f'{type(self).__name__} is closed: launch() it before asking its envs for {key!r}')
        values = self._read_envs(key, env_ids, call_args)
        for i, (ok, value) in zip(env_ids, values):
            if not ok:
                if isinstance(value, AttributeError):
                    raise AttributeError(f'env {i} of {type(self).__name__} has no attribute {key!r}') from value
                raise value
        return [value for _, value in values]


def read_env(env: Any, key: str, call_args: Optional[tuple]) -> tuple:
    """(True, env.key or env.key(*call_args)) or (False, the exception): a missing attribute
    is an answer, not an env fault to restart from."""
    try:
        value = _env_attribute(env, key)
        return True, value(*call_args) if call_args is not None else value
    except Exception as err:  # noqa: BLE001 - handed back to the caller
        return False, err


def _env_attribute(env: Any, key: str) -> Any:
    """`env.key`; for an env the manager wrapped (a gym env, or an object on DI-engine's env
    protocol, in `DingEnvWrapper`), the wrapped env's own attribute when the wrapper has none."""
    from ding.envs.ding_env_wrapper import DingEnvWrapper
    try:
        return getattr(env, key)
    except AttributeError:
        if not isinstance(env, DingEnvWrapper):
            raise
        return getattr(env.env, key)


def _by_env_id(reset_param: Union[None, Mapping[int, dict], Sequence[dict]]) -> Optional[Dict[int, dict]]:
    """DI-engine also takes reset parameters as a list, one per env."""
    if reset_param is None or isinstance(reset_param, Mapping):
        return reset_param
    return {i: p for i, p in enumerate(reset_param)}
