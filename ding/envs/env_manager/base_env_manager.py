"""Serial env managers: all envs stepped in this process, one after another.

The hot path is `step_batch(actions [n]) -> EnvStepBatch`: one vectorised action check, one
`gym_step` call per env (the gymnasium env's own `step` for a `DingEnvWrapper`), then four
`np.array` calls; episode returns and lengths live in arrays owned by the manager. No dict,
timestep or per-env array is built per step.

Arrays handed out (`ready_obs`, every `EnvStepBatch` field) are never written again: a
reset copies before replacing rows, so a caller may keep them.

`step(actions)` (see `timestep_adapter.py`) is the per-env path on top of
`step_batch`: a list of `EnvTimestep` (V2) or a dict `{env_id: timestep}` (`BaseEnvManager`,
V1).
"""
from threading import get_ident
from time import monotonic
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from ding.envs.base_env import BaseEnv
from ding.envs.env_manager import snapshot
from ding.envs.env_manager.action_check import make_action_splitter
from ding.envs.env_manager.env_faults import (DROPPED, FailStreaks, describe, make_env, restart_serial_env,
                                             step_each)
from ding.envs.env_manager.env_frames import render_frame
from ding.envs.env_manager.env_state import EnvState  # noqa: F401  (user code imports it from here)
from ding.envs.env_manager import nonfinite
from ding.envs.env_manager.obs_stack import check_obs, stack_obs
from ding.envs.env_manager.step_batch import EnvStepBatch, EnvTimestep
from ding.envs.env_manager.timestep_adapter import TimestepAdapter
from ding.envs.env_manager.watchdog import EnvWatchdog
from ding.utils.dicts import deep_merge
from ding.utils.registry import ENV_MANAGER_REGISTRY
from ding.utils.class_config import merged_class_config
from ding.config.schema import choice, non_negative, non_negative_int, positive


class ManagerClosedError(RuntimeError, AssertionError):
    """A closed (or never launched) manager was stepped. A RuntimeError, and an AssertionError
    too, for callers that catch an AssertionError there."""


@ENV_MANAGER_REGISTRY.register('base_v2')
class BaseEnvManagerV2(TimestepAdapter):
    """`BaseEnvManagerV2(env_fn=[callable, ...], cfg=cfg.env.manager)`.

    Seeding: `seed(s)` gives env i the seed `s + i` at its next reset; later resets continue
    its RNG (`dynamic_seed=True`) or reuse `s + i` every time (`dynamic_seed=False`, so an
    evaluation repeats exactly). An env that finishes `episode_num` episodes, or any
    episode when `auto_reset=False`, stops being ready until `reset()`: its rows in later
    batches repeat its last observation with reward 0 and no end flags.

    A manager that runs envs elsewhere (subprocesses) overrides `_create_envs`,
    `_reset_one`, `_step_envs` and `close`; checks, episode bookkeeping, auto-reset and the
    compatible `step` stay here.
    """
    config = dict(
        type='base_v2',
        episode_num=float('inf'),
        auto_reset=True,
        clip_action=False,  # Box actions outside the bounds: False raises, True clips
        # An env that raises is rebuilt from its env_fn and its episode dropped (env_faults.py);
        # more than `max_retry` failures of one env with no completed episode between stop the run.
        max_retry=non_negative_int(3),
        # Seconds. An env stepped in this process cannot be interrupted: a step (reset) waiting
        # longer is reported at WARNING by a watchdog thread (watchdog.py), every timeout while it
        # lasts. None: no watchdog. The subprocess managers restart such a worker instead.
        step_timeout=positive(60.0, optional=True),
        reset_timeout=positive(60.0, optional=True),
        # 'reset' (reset the env again) and 'renew' (build a new one) are both
        # accepted: a failed env is always rebuilt, as its state after an exception is not trusted.
        retry_type='reset',
        # seconds paused before each restart; 0 by default: rebuilding
        # a local env needs no pause. Set it for envs whose faults pass with time.
        retry_waiting_time=non_negative(0.0),
        # A NaN / infinite observation or reward: 'raise' stops the run naming the env and its
        # step; 'warn' logs it and drops that episode (nonfinite.py).
        nonfinite=choice('raise', 'raise', 'warn'),
    )
    steps_env_subsets = True  # its `_step_envs` steps only the envs marked in `_active`
    watches_envs = True  # its envs run in this process: a watchdog reports one that hangs
    # Whether the envs step without this interpreter's GIL (in other processes or threads of C):
    # only then can async mode overlap collection with training (contract.py, waits_outside_gil).
    envs_step_outside_gil = False

    default_config = classmethod(merged_class_config)

    def __init__(self, env_fn: Sequence[Callable[[], Any]], cfg: Optional[Mapping] = None) -> None:
        if not env_fn:
            raise ValueError(f'{type(self).__name__} needs a non-empty list of env_fn callables')
        self._env_fn = list(env_fn)
        self._env_num = len(self._env_fn)
        self._cfg = deep_merge(self.default_config(), cfg or {})
        self._episode_num = float(self._cfg.episode_num)
        self._auto_reset = bool(self._cfg.auto_reset)
        # Env faults (env_faults.py): counters, per-env fail streaks, rows dropped this step and
        # the reset obs of envs rebuilt mid-episode (taken by the auto-reset of the dropped episode).
        self.worker_restarts = 0  # restarts of an env (here) or of the worker / vector env holding it
        self.dropped_episodes = 0
        if self._cfg.retry_type not in ('reset', 'renew'):
            raise ValueError(f"{type(self).__name__}: retry_type must be 'reset' or 'renew', got "
                             f'{self._cfg.retry_type!r}')
        self._nonfinite = nonfinite.check_mode(type(self).__name__, self._cfg.nonfinite)
        self._check_each_step = True  # False once a collector checks whole rollouts (defer_nonfinite_check)
        self._past_steps = np.zeros(self._env_num, dtype=np.int64)  # steps of each env's finished episodes
        self._streaks = FailStreaks(type(self).__name__, self._env_num, int(self._cfg.max_retry),
                                    float(self._cfg.retry_waiting_time or 0))
        self._dropped_now: List[int] = []
        self._watch = None  # (start, results, env_id, thread) while an env steps / resets here (watchdog.py)
        self._watchdog: Optional[EnvWatchdog] = None
        self._restarted_obs: Dict[int, Any] = {}
        self._envs: Optional[List[BaseEnv]] = self._create_envs()
        self._observation_space, self._action_space, self._reward_space = self._read_spaces(self._envs[0])
        shape = getattr(self._observation_space, 'shape', None)
        self._obs_shape = tuple(shape) if shape is not None else None  # else learnt at the first reset
        self._split_actions = make_action_splitter(self._action_space, self._env_num, bool(self._cfg.clip_action))
        self._seeds: Optional[List[Optional[int]]] = None
        self._dynamic_seed = True
        self._closed = True
        self._launched_once = False
        self._obs: Optional[np.ndarray] = None
        self._no_return = np.full(self._env_num, np.nan)
        self._reward_shape = (self._env_num, )

    def _read_spaces(self, ref: Any) -> tuple:
        """(observation, action, reward) spaces of `ref`. An env may make its spaces in its
        first reset: then a spare copy is reset, asked and closed."""
        try:
            return ref.observation_space, ref.action_space, getattr(ref, 'reward_space', None)
        except AttributeError:
            spare = make_env(self._env_fn[0])
            try:
                spare.reset()
                return spare.observation_space, spare.action_space, getattr(spare, 'reward_space', None)
            finally:
                spare.close()

    # --- lifecycle ------------------------------------------------------------------------
    def _create_envs(self) -> List[BaseEnv]:
        return [make_env(fn) for fn in self._env_fn]

    def launch(self, reset_param: Optional[Mapping[int, dict]] = None) -> None:
        """Create the envs (again, after `close()`) and reset them all."""
        if not self._closed:
            raise RuntimeError(f'{type(self).__name__} is already launched; close() it first or call reset()')
        if self._envs is None:
            self._envs = self._create_envs()
            if self._seeds is not None:
                self._apply_seeds()
        self._gym_steps = [env.gym_step for env in self._envs]
        self._closed = False
        if self.watches_envs and self._watchdog is None:
            self._watchdog = EnvWatchdog(self, self._cfg.step_timeout, self._cfg.reset_timeout)
            self._watchdog.start()
        self._launched_once = True
        self._reset_envs(range(self._env_num), reset_param or {})

    def reset(self, reset_param: Optional[Mapping[int, dict]] = None) -> None:
        """Reset every env, or only the env ids keyed in `reset_param` ({env_id: kwargs for
        the env's `reset`}); launches first if needed."""
        if self._closed:
            self.launch(reset_param)
        elif reset_param:
            self._reset_envs(sorted(int(i) for i in reset_param), reset_param)
        else:
            self._reset_envs(range(self._env_num), {})

    def close(self) -> None:
        if self._watchdog is not None:
            self._watchdog.stop()
            self._watchdog = None
        if self._envs is not None:
            for env in self._envs:
                env.close()
        self._envs = None
        self._obs = None
        self._restarted_obs.clear()
        self._closed = True

    def seed(self, seed: Union[int, Sequence[int], Mapping[int, int]], dynamic_seed: bool = True) -> None:
        """int: env i gets `seed + i`; a list or {env_id: seed} gives each env its own.
        Takes effect at each env's next reset (and again after a relaunch)."""
        if isinstance(seed, Mapping):
            self._seeds = [seed.get(i) for i in range(self._env_num)]
        elif isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != self._env_num:
                raise ValueError(f'got {len(seed)} seeds for {self._env_num} envs')
            self._seeds = [int(s) for s in seed]
        else:
            self._seeds = [int(seed) + i for i in range(self._env_num)]
        self._dynamic_seed = bool(dynamic_seed)
        if self._envs is not None:
            self._apply_seeds()

    def _apply_seeds(self) -> None:
        for env, s in zip(self._envs, self._seeds):
            if s is not None:
                env.seed(s, self._dynamic_seed)

    def __enter__(self) -> 'BaseEnvManagerV2':
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- resets ---------------------------------------------------------------------------
    def _reset_envs(self, env_ids: Sequence[int], params: Mapping[int, dict]) -> None:
        env_ids = list(env_ids)
        for i in env_ids:
            if not 0 <= i < self._env_num:
                raise ValueError(f'env id {i} out of range for {self._env_num} envs')
        obs = [self._reset_one(i, params.get(i)) for i in env_ids]
        if self._obs_shape is None:
            self._obs_shape = np.shape(obs[0])
        fresh = stack_obs(obs, self._obs_shape, env_ids)
        if self._check_each_step:
            nonfinite.check_reset_obs(type(self).__name__, fresh, env_ids, self._streaks.offset)
        if self._obs is not None:
            self._past_steps[env_ids] += self._episode_length[env_ids]
        if len(env_ids) == self._env_num:
            self._obs = fresh
            self._episode_return = np.zeros(self._env_num, dtype=np.float64)
            self._episode_length = np.zeros(self._env_num, dtype=np.int64)
            self._episode_count = np.zeros(self._env_num, dtype=np.int64)
            self._active = np.ones(self._env_num, dtype=bool)
        else:
            ready = self._obs.copy()
            ready[env_ids] = fresh
            self._obs = ready
            self._episode_return[env_ids] = 0.0
            self._episode_length[env_ids] = 0
            self._active[env_ids] = True
        self._update_active()

    def _reset_one(self, env_id: int, param: Optional[dict]) -> Any:
        fresh = self._restarted_obs.pop(env_id, None)
        if fresh is not None and not param:
            return fresh
        while True:
            env = self._envs[env_id]
            self._watch = (monotonic(), None, env_id, get_ident())
            try:
                return env.reset(**param) if param else env.gym_reset()[0]
            except Exception as err:  # noqa: BLE001 - an env fault: rebuild the env (env_faults.py)
                restart_serial_env(self, env_id, describe(err))  # raises EnvFaultError past max_retry
                fresh = self._restarted_obs.pop(env_id)
                if not param:
                    return fresh
                # the rebuilt env was reset without `param`: ask again with it (as the subprocess manager does)
            finally:
                self._watch = None

    def show_env_ids_from(self, offset: int) -> None:
        """Name env ids in fault logs and errors from `offset` (a group of a GroupedEnvManager)."""
        self._streaks.offset = int(offset)

    def _update_active(self) -> None:
        self._active_ids = np.flatnonzero(self._active).tolist()
        self._all_active = len(self._active_ids) == self._env_num

    # --- stepping -------------------------------------------------------------------------
    def _check_running(self) -> None:
        if self._closed:
            if self._launched_once:
                raise ManagerClosedError(f'{type(self).__name__} is closed: call launch() before stepping it again')
            raise ManagerClosedError(f'{type(self).__name__} is not launched: call launch() or reset() before '
                                     'stepping')

    def step_batch(self, actions: Any) -> EnvStepBatch:
        """Step every ready env with its row of `actions` ([env_num, ...]); finished
        episodes are reset right away (`ready_obs` then shows the reset observation)."""
        if self._closed:
            self._check_running()
        obs, rew, term, trunc, infos = self._step_envs(self._split_actions(actions))
        next_obs = stack_obs(obs, self._obs_shape, range(self._env_num))
        reward = np.array(rew, dtype=np.float32)
        if reward.shape != self._reward_shape:  # envs giving one-element reward arrays
            if reward.size != self._env_num:
                raise ValueError(f'each env must return a scalar reward; got rewards of shape {reward.shape} '
                                 f'for {self._env_num} envs')
            reward = reward.reshape(self._env_num)
        terminated = np.array(term, dtype=bool)
        truncated = np.array(trunc, dtype=bool)
        self._episode_length += self._active
        dropped = False
        if self._check_each_step and not nonfinite.finite(next_obs, reward):
            infos, dropped = self._guard_nonfinite(next_obs, reward, terminated, truncated, infos)
        self._episode_return += reward
        episode_return = self._no_return.copy()
        episode_length = np.zeros(self._env_num, dtype=np.int64)
        if dropped or True in term or True in trunc:
            self._end_episodes(np.flatnonzero(terminated | truncated).tolist(), infos, next_obs, episode_return,
                               episode_length)
        else:
            self._obs = next_obs
        return EnvStepBatch(next_obs, reward, terminated, truncated, episode_return, episode_length, infos)

    def _guard_nonfinite(self, next_obs: np.ndarray, reward: np.ndarray, terminated: np.ndarray,
                         truncated: np.ndarray, infos: Sequence[dict]) -> tuple:
        """A row with a non-finite observation or reward: raise (nonfinite='raise'), or drop that
        env's episode with a warning, as an env fault does (nonfinite.py). Returns (infos, dropped)."""
        who, infos, dropped = type(self).__name__, list(infos), False
        for i, what in nonfinite.bad_rows(next_obs, reward):
            label = self._streaks.label([i])
            step = int(self._past_steps[i] + self._episode_length[i])
            text = nonfinite.message(who, label, what, step, int(self._episode_length[i]))
            if self._nonfinite == 'raise':
                raise nonfinite.NonFiniteError(text + nonfinite.HINT)
            self._streaks.streak[i] += 1
            if self._streaks.streak[i] > self._streaks.max_retry:
                raise nonfinite.NonFiniteError(f'{text}, {self._streaks.streak[i]} times in a row with no completed '
                                               f'episode between (max_retry={self._streaks.max_retry})')
            nonfinite.logger.warning('%s; its episode is dropped and the env reset (env.manager.nonfinite=warn)',
                                     text)
            if isinstance(next_obs, np.ndarray):
                next_obs[i] = self._obs[i]
            reward[i], terminated[i], truncated[i] = 0.0, False, True
            infos[i] = dict(infos[i] or {}, **{DROPPED: True})
            self._dropped_now = list(self._dropped_now) + [i]
            self.dropped_episodes += 1
            dropped = True
        return infos, dropped

    def defer_nonfinite_check(self) -> Optional[Callable[[], Callable[[Mapping[str, Any]], None]]]:
        """Hand the non-finite check to a caller that keeps each rollout as `[env, T]` columns
        (StepCollector): checking every step and reset here cost 1.5% of CartPole collection
        (issue 38), a whole collect call's columns at once a few array passes. Returns `begin`:
        called before a rollout, it notes each env's step counts and returns `check(columns)`,
        which raises NonFiniteError naming the env and its step as the per-step check does.
        None under 'warn', which must drop an episode at its bad step: checks stay per step."""
        if self._nonfinite != 'raise':
            return None
        self._check_each_step = False
        return self._begin_rollout_check

    def _begin_rollout_check(self) -> Callable[[Mapping[str, Any]], None]:
        lengths = self._episode_length.copy() if self._obs is not None else np.zeros(self._env_num, dtype=np.int64)
        steps = self._past_steps + lengths  # each env's steps before the rollout (it steps every env each t)

        def check(cols: Mapping[str, Any]) -> None:
            if nonfinite.rollout_finite(cols['obs'], cols['next_obs'], cols['reward']):
                return
            row, t, what, from_reset = nonfinite.first_bad_step(cols['obs'], cols['next_obs'], cols['reward'])
            label = self._streaks.label([row])
            if from_reset:
                raise nonfinite.NonFiniteError(f'{type(self).__name__}: {label} returned a non-finite {what} from '
                                               'reset')
            ended = np.flatnonzero(cols['done'][row, :t] | cols['truncated'][row, :t])
            episode_step = t - int(ended[-1]) if len(ended) else int(lengths[row]) + t + 1
            text = nonfinite.message(type(self).__name__, label, what, int(steps[row]) + t + 1, episode_step)
            raise nonfinite.NonFiniteError(text + nonfinite.HINT)

        return check

    def _step_envs(self, acts: List[Any]) -> tuple:
        """Step the ready envs: (obs, reward, terminated, truncated, info) sequences of
        length env_num. Envs that are not ready keep their observation, reward 0, no end.
        An env that raises is rebuilt and its row flagged as a dropped episode (`step_each`)."""
        results = []
        self._watch = (monotonic(), results if self._all_active else None, None, get_ident())
        try:
            if self._all_active:
                try:
                    for step, a in zip(self._gym_steps, acts):
                        results.append(step(a))
                except Exception as err:  # noqa: BLE001 - env `len(results)` failed: the slow path handles it
                    return step_each(self, acts, results, err)
                return zip(*results)
            if not self._active_ids:
                raise RuntimeError(f'every env of {type(self).__name__} has finished its episodes; call reset()')
            return step_each(self, acts, [], None)
        finally:
            self._watch = None

    def _end_episodes(self, ended: List[int], infos: Sequence[dict], next_obs: np.ndarray,
                      episode_return: np.ndarray, episode_length: np.ndarray) -> None:
        ready = next_obs.copy()
        dropped = set(self._dropped_now) if self._dropped_now else ()
        self._dropped_now = []
        deactivated = False
        for i in ended:
            self._past_steps[i] += self._episode_length[i]
            if i in dropped:  # lost to a restart: no return, not counted; a fresh episode is ready
                episode_return[i], episode_length[i] = np.nan, 0
                self._episode_return[i], self._episode_length[i] = 0.0, 0
                ready[i] = check_obs(i, self._reset_one(i, None), self._obs_shape)
                continue
            info = infos[i]
            given = info.get('eval_episode_return') if info is not None else None
            value = float(np.asarray(given).reshape(())) if given is not None else float(self._episode_return[i])
            if info is not None:
                info['eval_episode_return'] = value
            episode_return[i], episode_length[i] = value, self._episode_length[i]
            self._episode_return[i], self._episode_length[i] = 0.0, 0
            self._episode_count[i] += 1
            if self._auto_reset and self._episode_count[i] < self._episode_num:
                ready[i] = check_obs(i, self._reset_one(i, None), self._obs_shape)
            else:
                self._active[i] = False
                deactivated = True
        self._streaks.completed([i for i in ended if i not in dropped] if dropped else ended)
        self._obs = ready
        if deactivated:  # an auto-reset env stays active: most episode ends change nothing here
            self._update_active()

    # --- state ----------------------------------------------------------------------------
    @property
    def ready_obs(self) -> np.ndarray:
        """`[env_num, *obs_shape]`, float32 (uint8 frames stay uint8): the observation each env acts on next."""
        self._check_running()
        return self._obs

    def ready_imgs(self, render_mode: str = 'rgb_array') -> Dict[int, np.ndarray]:
        """{env_id: frame [H, W, C]} of each active env, as rendered now."""
        self._check_running()
        return {i: render_frame(self._envs[i], render_mode) for i in self.ready_obs_id}

    @property
    def ready_obs_id(self) -> List[int]:
        self._check_running()
        return list(self._active_ids)

    @property
    def done(self) -> bool:
        """True once no env is ready (all finished `episode_num` episodes, or auto_reset off)."""
        return not self._closed and not self._active_ids

    @property
    def env_num(self) -> int:
        return self._env_num

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def observation_space(self) -> Any:
        return self._observation_space

    @property
    def action_space(self) -> Any:
        return self._action_space

    @property
    def reward_space(self) -> Any:
        return self._reward_space

    def __repr__(self) -> str:
        state = 'closed' if self._closed else 'running'
        return f'{type(self).__name__}(env_num={self._env_num}, {state})'

    # --- snapshot (exact resume; ding/envs/env_manager/snapshot.py) ------------------------
    def state_dict(self) -> Dict[str, Any]:
        """The envs (pickled, mid-episode included), episode bookkeeping and action-space RNG;
        raises `EnvSnapshotError` when an env cannot be pickled."""
        return snapshot.serial_state_dict(self)

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Continue exactly where `state_dict()` was taken (a closed manager is launched)."""
        snapshot.load_serial_state_dict(self, state)


@ENV_MANAGER_REGISTRY.register('base')
class BaseEnvManager(BaseEnvManagerV2):
    """The same manager with V1's `step`: it returns `{env_id: timestep}`."""
    config = dict(type='base')

    def step(self, actions: Union[Mapping[int, Any], Sequence[Any]]) -> Dict[int, EnvTimestep]:
        return {ts.env_id: ts for ts in super().step(actions)}
