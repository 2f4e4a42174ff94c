"""Env-manager snapshots: the `state_dict()` / `load_state_dict()` protocol of the managers.

Why: exact resume (`ding.framework.middleware.run_state`) must carry envs that are in
mid-episode, which cannot in general be rebuilt from a seed. So the envs are pickled as
objects (cloudpickle, which also takes the closures some gymnasium wrappers hold; gymnasium
classic-control and box2d envs pickle with their physics state, TimeLimit counter and
np_random), along with the manager's per-env episode bookkeeping and the generator of its
action space (the random warm-up samples from it).

One format serves the serial and the subprocess manager: one pickle per env, in env-id
order, so a snapshot loads into either and into any `worker_num`. A subprocess manager
gets its envs' pickles from its workers (`worker_snapshot` / `worker_load` below run in the
worker). A grouped manager (the alternating sampler) holds one snapshot per group.

A manager whose envs cannot be captured raises `EnvSnapshotError` saying why; the caller
(`RunStateSaver`) then resumes with fresh episodes, see `start_fresh_episodes`.
"""
import copy
import pickle
import sys
from typing import Any, Callable, Dict, List, Optional

import cloudpickle
import numpy as np

from ding.envs.env_manager.env_faults import close_quietly

FORMAT = 'per_env_pickles'
# Per-env episode bookkeeping of BaseEnvManagerV2 (and its seeding), restored as is.
MANAGER_FIELDS = ('_obs', '_episode_return', '_episode_length', '_episode_count', '_active', '_seeds',
                  '_dynamic_seed', '_launched_once')
# Counters some managers keep (episodes dropped and workers restarted after env faults).
COUNTER_FIELDS = ('dropped_episodes', 'worker_restarts')


class EnvSnapshotError(RuntimeError):
    """The envs of a manager cannot be captured or restored (the message says why)."""


# --- pieces -----------------------------------------------------------------------------------
def dumps_env(env: Any, env_id: int) -> bytes:
    try:
        return cloudpickle.dumps(env, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as err:  # noqa: BLE001 - any pickling failure means: no snapshot of this env
        raise EnvSnapshotError(f'env {env_id} ({type(env).__name__}) cannot be pickled: '
                               f'{type(err).__name__}: {err}') from err


def loads_env(data: bytes, env_id: int) -> Any:
    try:
        return pickle.loads(data)
    except Exception as err:  # noqa: BLE001 - e.g. the env's class moved or its package is missing
        raise EnvSnapshotError(f'env {env_id} cannot be unpickled: {type(err).__name__}: {err}') from err


CARRIED = '__carried__'  # an actor's state between calls (a recurrent actor's LSTM state per env)


def actor_state(actor: Any) -> Dict[str, Any]:
    """What a worker's actor needs to act on exactly as it would have: the states of the numpy /
    torch generators among its attributes (its RNG), and what it carries from call to call when
    it says so (`carried_state()` / `load_carried_state(s)`)."""
    torch = sys.modules.get('torch')  # an actor with a torch generator has imported torch
    states = {}
    for name, value in vars(actor).items():
        if isinstance(value, np.random.Generator):
            states[name] = ('numpy', copy.deepcopy(value.bit_generator.state))
        elif torch is not None and isinstance(value, torch.Generator):
            states[name] = ('torch', value.get_state())
    if hasattr(actor, 'carried_state'):
        states[CARRIED] = ('carried', actor.carried_state())
    return states


def load_actor_state(actor: Any, states: Dict[str, Any]) -> None:
    for name, (kind, state) in states.items():  # the carried state comes last, as `actor_state` adds it
        value = getattr(actor, name, None)
        if kind == 'numpy' and isinstance(value, np.random.Generator):
            value.bit_generator.state = state
        elif kind == 'torch' and type(value).__name__ == 'Generator':
            value.set_state(state)
        elif kind == 'carried':
            if not hasattr(actor, 'load_carried_state'):
                raise EnvSnapshotError(f'the snapshot holds the carried state of a {type(actor).__name__} that '
                                       f'cannot load one (load_carried_state)')
            actor.load_carried_state(state)


def _load_header(manager: Any, state: Dict[str, Any], kind: str = FORMAT) -> bool:
    """Check that `state` fits `manager` and restore its action-space generator; True when the
    snapshot holds envs to load (it was taken of a running manager)."""
    if state.get('format') != kind:
        raise EnvSnapshotError(f'{type(manager).__name__} cannot load a snapshot of kind {state.get("format")!r} '
                               f'(taken by {state.get("manager")}); it loads {kind!r}')
    if state['env_num'] is not None and state['env_num'] != manager.env_num:  # None: a closed format-1 manager
        raise EnvSnapshotError(f'snapshot holds {state["env_num"]} envs; {type(manager).__name__} has '
                               f'{manager.env_num}')
    if state['space_rng'] is not None:
        manager.action_space.np_random.bit_generator.state = state['space_rng']
    return not state['closed']


def _bookkeeping(manager: Any) -> Dict[str, Any]:
    fields = {f: copy.deepcopy(getattr(manager, f)) for f in MANAGER_FIELDS if hasattr(manager, f)}
    fields.update({f: getattr(manager, f) for f in COUNTER_FIELDS if hasattr(manager, f)})
    return fields


def _header(manager: Any) -> Dict[str, Any]:
    # The action space's generator is made now if it was not yet: it would be at its first
    # sample, from fresh entropy, so the resumed run would not repeat the original.
    rng = getattr(manager.action_space, 'np_random', None)
    return {'format': FORMAT, 'manager': type(manager).__name__, 'env_num': manager.env_num,
            'closed': manager.closed, 'space_rng': None if rng is None else copy.deepcopy(rng.bit_generator.state)}


# --- serial manager (BaseEnvManagerV2) --------------------------------------------------------
def serial_state_dict(manager: Any) -> Dict[str, Any]:
    state = _header(manager)
    if not manager.closed:
        state['envs'] = [dumps_env(env, i) for i, env in enumerate(manager._envs)]
        state['fields'] = _bookkeeping(manager)
    return state


def load_serial_state_dict(manager: Any, state: Dict[str, Any]) -> None:
    if not _load_header(manager, state):
        return
    envs = [loads_env(data, i) for i, data in enumerate(state['envs'])]
    if not manager.closed:
        manager.close()
    for env in manager._envs or ():  # built by the constructor, never launched
        env.close()
    manager._envs = envs
    manager._gym_steps = [e.gym_step for e in envs]
    _set_fields(manager, state['fields'])
    manager._closed = False


def _set_fields(manager: Any, fields: Dict[str, Any]) -> None:
    """Restore the bookkeeping (the ready env ids follow the restored `_active` mask)."""
    for name, value in fields.items():
        setattr(manager, name, copy.deepcopy(value))
    manager._update_active()


# --- subprocess manager: the envs come from and go to the workers ----------------------------
def subprocess_state_dict(manager: Any) -> Dict[str, Any]:
    state = _header(manager)
    if manager.closed:
        return state
    if manager._in_flight is not None:
        raise EnvSnapshotError(f'{type(manager).__name__}: a step is in flight (step_batch_async without '
                               f'step_batch_wait); snapshot between steps')
    replies = manager._command({h: ('snapshot_envs', None) for h in manager._handles}, manager._cfg.reset_timeout,
                               restart=False)
    envs: List[Optional[bytes]] = [None] * manager.env_num
    actors = {}
    for h, (pickles, error, actor_rng) in replies.items():
        if error is not None:
            raise EnvSnapshotError(f'{type(manager).__name__}: {error}')
        for i, data in zip(h.env_ids, pickles):
            envs[i] = data
        if actor_rng:
            actors[h.env_ids[0]] = actor_rng
    state['envs'] = envs
    state['fields'] = _bookkeeping(manager)
    state['fields']['_lost'] = set(manager._lost)
    state['actor_rng'] = actors  # by the first env id of each worker (worker_inference)
    return state


def load_subprocess_state_dict(manager: Any, state: Dict[str, Any]) -> None:
    if not _load_header(manager, state):
        return
    if manager.closed:
        manager.launch()  # workers up (their fresh envs are replaced next)
    actors = state.get('actor_rng', {})
    requests = {}
    for h in manager._handles:
        pickles = [state['envs'][i] for i in h.env_ids]
        requests[h] = ('load_envs', (pickles, actors.get(h.env_ids[0])))
    manager._command(requests, manager._cfg.reset_timeout, restart=False)
    _set_fields(manager, state['fields'])
    manager._active_dirty = True  # the workers' `active` flags are rewritten at the next step
    manager._ready_shm[:] = manager._obs  # what a worker-side rollout acts on next (worker_inference)
    manager._flag_shm[:] = 0


def worker_snapshot(worker: Any) -> tuple:
    """In a worker: (one pickle per env, None, its actor's state) or (None, why, None).
    A pickling failure is an answer, not an env fault, so the worker is not restarted."""
    try:
        pickles = [dumps_env(env, i) for env, i in zip(worker.envs, worker.ids)]
    except EnvSnapshotError as err:
        return None, str(err), None
    actor = getattr(worker, 'actor', None)
    return pickles, None, actor_state(actor) if actor is not None else None


def worker_load(worker: Any, payload: tuple) -> None:
    """In a worker: replace its envs by the pickled ones (and its actor's state)."""
    pickles, actor_rng = payload
    envs = [loads_env(data, i) for data, i in zip(pickles, worker.ids)]
    for env in worker.envs:
        close_quietly(env)
    worker.set_envs(envs)
    actor = getattr(worker, 'actor', None)
    if actor is not None and actor_rng:
        load_actor_state(actor, actor_rng)


# --- gymnasium vector manager: the whole SyncVectorEnv is pickled --------------------------------
VECTOR_FORMAT = 'gym_sync_vector'


def gym_vector_state_dict(manager: Any) -> Dict[str, Any]:
    if manager._cfg.vector != 'sync':
        raise EnvSnapshotError(f"{type(manager).__name__} with vector='{manager._cfg.vector}' keeps its envs in "
                               f"gymnasium's worker processes, which cannot hand them out; vector='sync' (or the "
                               f"subprocess manager) resumes exactly")
    state = dict(_header(manager), format=VECTOR_FORMAT)
    if not manager.closed:
        state['vector'] = dumps_env(manager._vec, -1)
        state['fields'] = dict(_bookkeeping(manager), _reset_obs=copy.deepcopy(manager._reset_obs),
                               _seed_pending=manager._seed_pending)
    return state


def load_gym_vector_state_dict(manager: Any, state: Dict[str, Any], make_slot: Callable[[Any], Any]) -> None:
    if not _load_header(manager, state, VECTOR_FORMAT):
        return
    vec = loads_env(state['vector'], -1)
    if not manager.closed:
        manager.close()
    if manager._vec is not None:  # built by the constructor, never launched
        manager._vec.close()
    manager._vec = vec
    manager._envs = [make_slot(vec) for _ in range(manager.env_num)]
    manager._gym_steps = [None] * manager.env_num
    _set_fields(manager, state['fields'])
    manager._closed = False


# --- grouped managers (the alternating sampler) -----------------------------------------------
def grouped_state_dict(manager: Any) -> Dict[str, Any]:
    return {'format': 'groups', 'manager': type(manager).__name__, 'env_num': manager.env_num,
            'groups': [group.state_dict() for group in manager.groups]}


def load_grouped_state_dict(manager: Any, state: Dict[str, Any]) -> None:
    if state.get('format') != 'groups' or len(state['groups']) != len(manager.groups):
        raise EnvSnapshotError(f'{type(manager).__name__} with {len(manager.groups)} groups cannot load a snapshot '
                               f'taken by {state.get("manager")} ({state.get("format")!r})')
    for group, group_state in zip(manager.groups, state['groups']):
        group.load_state_dict(group_state)


# --- no snapshot: fresh episodes --------------------------------------------------------------
def start_fresh_episodes(manager: Any, env_step: int) -> str:
    """Make `manager` start new episodes at its next launch, seeded apart from the run's first
    ones (each env's seed shifted by `env_step`); returns what was done, for the log."""
    if not manager.closed:
        manager.close()
    shifted = _shift_seeds(manager, int(env_step))
    return 'envs reseeded (seed + env_step)' if shifted else 'envs keep their seeds'


def _shift_seeds(manager: Any, offset: int) -> bool:
    if hasattr(manager, 'groups'):
        return all([_shift_seeds(group, offset) for group in manager.groups])
    seeds = getattr(manager, '_seeds', None)
    if seeds is None or not hasattr(manager, 'seed'):
        return False
    manager.seed({i: s + offset for i, s in enumerate(seeds) if s is not None}, getattr(manager, '_dynamic_seed', True))
    return True
