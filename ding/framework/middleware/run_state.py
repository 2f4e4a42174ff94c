"""`RunStateSaver`: checkpoints that resume a serial run exactly.

What is saved (one file, `<exp_name>/ckpt/run_state.pt`, replaced atomically):
  - the learner: `policy.learn_mode.state_dict()` (model, target nets, optimizers, counters);
  - the replay buffer: rows, ids, metas, stateful buffer middleware (PER priorities) and
    the buffer's sampling generator;
  - the kept ctx counters (env_step, train_iter, last eval, ...) and total_step; the
    exploration schedule and the logger's step are functions of env_step, so they follow;
  - python, numpy and torch RNG states;
  - the collector envs, mid-episode included (below).

When: at the very end of a step (this middleware is registered first, so its post-yield
part runs last), every `every_env_step` env steps and when the task finishes. Nothing is in
flight there: collected data is already in the buffer, the learner is between updates.
Restoring at the start of the next step therefore continues the same computation.

Envs: an env in mid-episode cannot in general be rebuilt from a seed, so the collector
manager's envs are pickled as objects (gymnasium classic-control envs pickle with their
physics state, TimeLimit counter and np_random; cloudpickle for wrappers holding closures)
along with the manager's per-env episode bookkeeping and its action space's generator
(used by random warm-up). Evaluator envs need
nothing: every evaluation reseeds them. A manager that runs envs in other processes cannot
be pickled this way; it may offer `state_dict()` / `load_state_dict()`, else the saver
refuses at construction.

Exactness holds in sync mode only (in async mode other steps are in flight at the boundary).
"""
import copy
import logging
import os
import pickle
import random
from typing import Any, Dict, Optional

import numpy as np
import torch

from ding.framework.contract import contract
from ding.framework.middleware import _common
from ding.utils.fileio import atomic_torch_save
from ding.utils.run_dir import RUN_STATE_NAME, remove_stale_tmp

logger = logging.getLogger('ding.run_state')
FORMAT_VERSION = 1
_MANAGER_FIELDS = ('_obs', '_episode_return', '_episode_length', '_episode_count', '_active', '_seeds',
                   '_dynamic_seed', '_launched_once')


# --- RNG ------------------------------------------------------------------------------------
def rng_state() -> Dict[str, Any]:
    state = {'python': random.getstate(), 'numpy': np.random.get_state(), 'torch': torch.get_rng_state()}
    if torch.cuda.is_available():
        state['cuda'] = torch.cuda.get_rng_state_all()
    return state


def load_rng_state(state: Dict[str, Any]) -> None:
    random.setstate(state['python'])
    np.random.set_state(state['numpy'])
    torch.set_rng_state(state['torch'])
    if 'cuda' in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state['cuda'])


# --- replay buffer ----------------------------------------------------------------------------
def buffer_state(buffer: Any) -> Dict[str, Any]:
    """Rows, bookkeeping, stateful middleware (priorities) and the sampling generator."""
    with buffer.lock:
        return {
            'buffer': copy.deepcopy(buffer.state_dict()),
            'middleware': [copy.deepcopy(m.state_dict()) for m in buffer.middleware if hasattr(m, 'state_dict')],
            'rng': copy.deepcopy(buffer.rng.bit_generator.state),
        }


def load_buffer_state(buffer: Any, state: Dict[str, Any]) -> None:
    stateful = [m for m in buffer.middleware if hasattr(m, 'load_state_dict')]
    if len(stateful) != len(state['middleware']):
        raise ValueError(f'checkpoint has state for {len(state["middleware"])} buffer middleware; this buffer '
                         f'has {len(stateful)} stateful ones ({[type(m).__name__ for m in stateful]})')
    with buffer.lock:
        buffer.load_state_dict(state['buffer'])
        for m, s in zip(stateful, state['middleware']):
            m.load_state_dict(s)
        buffer.rng.bit_generator.state = state['rng']


# --- env managers -----------------------------------------------------------------------------
def check_env_snapshot(env: Any) -> None:
    """Fail early for a manager whose envs cannot be captured."""
    if hasattr(env, 'state_dict') and hasattr(env, 'load_state_dict'):
        return
    if not all(hasattr(env, f) for f in ('_envs', '_reset_one', '_update_active')):
        raise TypeError(f'RunStateSaver cannot snapshot {type(env).__name__}: exact resume needs a serial env '
                        f'manager (BaseEnvManagerV2) or one with state_dict()/load_state_dict()')


def env_manager_state(env: Any) -> Dict[str, Any]:
    if hasattr(env, 'state_dict') and hasattr(env, 'load_state_dict'):
        return {'kind': 'own', 'state': env.state_dict()}
    space_rng = getattr(env.action_space, '_np_random', None)
    state = {'kind': 'serial', 'closed': env.closed,
             'space_rng': None if space_rng is None else copy.deepcopy(space_rng.bit_generator.state)}
    if not env.closed:
        state['envs'] = _dumps(env._envs)
        state['fields'] = {f: copy.deepcopy(getattr(env, f)) for f in _MANAGER_FIELDS if hasattr(env, f)}
    return state


def _dumps(obj: Any) -> bytes:
    """cloudpickle (a gymnasium dependency) also takes the closures some gymnasium wrappers
    hold, e.g. RescaleAction's; its output loads with plain pickle."""
    try:
        import cloudpickle
    except ImportError:
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return cloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def load_env_manager_state(env: Any, state: Dict[str, Any]) -> None:
    if state['kind'] == 'own':
        env.load_state_dict(state['state'])
        return
    if state['space_rng'] is not None:
        env.action_space.np_random.bit_generator.state = state['space_rng']
    if state['closed']:
        return
    if not env.closed:
        env.close()
    env._envs = pickle.loads(state['envs'])
    env._gym_steps = [e.gym_step for e in env._envs]
    for name, value in state['fields'].items():
        setattr(env, name, value)
    env._closed = False
    env._update_active()


# --- ctx --------------------------------------------------------------------------------------
def ctx_state(ctx: Any) -> Dict[str, Any]:
    names = sorted(set(getattr(ctx, 'kept_names', ())) | {'total_step'})
    return {name: copy.deepcopy(getattr(ctx, name)) for name in names}


def load_ctx_state(ctx: Any, state: Dict[str, Any], next_step: bool) -> None:
    for name, value in state.items():
        setattr(ctx, name, value)
    extra = [n for n in state if n != 'total_step' and n not in ctx.kept_names]
    if extra:
        ctx.keep(*extra)
    if next_step:
        ctx.total_step = state['total_step'] + 1


def load_run_state(path: str) -> Dict[str, Any]:
    """Read a run-state checkpoint (a pickle of python objects, so only load your own)."""
    state = torch.load(path, map_location='cpu', weights_only=False)
    if state.get('format') != FORMAT_VERSION:
        raise ValueError(f'{path}: run-state format {state.get("format")}, this ding reads {FORMAT_VERSION}')
    return state


class RunStateSaver:
    """`RunStateSaver(save_dir, policy, buffer_=None, env=None, every_env_step=10000, resume=False)`.

    Register it FIRST in the pipeline. `env` is the collector env manager. With `resume=True`
    the first step starts by restoring `<save_dir>/ckpt/run_state.pt`, so the run carries on
    as if never stopped; `extra` objects with state_dict/load_state_dict ride along.
    """

    def __init__(self, save_dir: str, policy: Any, buffer_: Any = None, env: Any = None, every_env_step: int = 10000,
                 resume: bool = False, extra: Optional[Dict[str, Any]] = None) -> None:
        if every_env_step is None or int(every_env_step) <= 0:
            raise ValueError(f'RunStateSaver: every_env_step must be a positive number of env steps, '
                             f'got {every_env_step}')
        if env is not None:
            check_env_snapshot(env)
        self.ckpt_dir = os.path.join(os.fspath(save_dir), 'ckpt')
        self.path = os.path.join(self.ckpt_dir, RUN_STATE_NAME)
        self._learn = policy.learn_mode if hasattr(policy, 'learn_mode') else policy
        self._buffer, self._env, self._extra = buffer_, env, dict(extra or {})
        self._every = int(every_env_step)
        self._pending_resume = bool(resume)
        self._last_saved_step: Optional[int] = None
        self.resumed_from: Optional[Dict[str, Any]] = None
        if resume and not os.path.isfile(self.path):
            raise FileNotFoundError(f'cannot resume: no run-state checkpoint at {self.path}')
        contract(self, reads=('env_step', ), name='RunStateSaver')

    def capture(self, ctx: Any, finished: bool) -> Dict[str, Any]:
        return {
            'format': FORMAT_VERSION,
            'finished': finished,
            'ctx': ctx_state(ctx),
            'policy': self._learn.state_dict(),
            'buffer': None if self._buffer is None else buffer_state(self._buffer),
            'env': None if self._env is None else env_manager_state(self._env),
            'extra': {k: v.state_dict() for k, v in self._extra.items()},
            'rng': rng_state(),
        }

    def save(self, ctx: Any, finished: bool = False) -> str:
        atomic_torch_save(self.capture(ctx, finished), self.path)
        self._last_saved_step = ctx.env_step
        return self.path

    def restore(self, ctx: Any) -> Dict[str, Any]:
        """Load the checkpoint into the policy, buffer, env, ctx and RNGs; returns it."""
        remove_stale_tmp(self.ckpt_dir)
        state = load_run_state(self.path)
        self._learn.load_state_dict(state['policy'])
        if self._buffer is not None and state['buffer'] is not None:
            load_buffer_state(self._buffer, state['buffer'])
        if self._env is not None and state['env'] is not None:
            load_env_manager_state(self._env, state['env'])
        for name, obj in self._extra.items():
            if name in state['extra']:
                obj.load_state_dict(state['extra'][name])
        load_ctx_state(ctx, state['ctx'], next_step=True)
        load_rng_state(state['rng'])
        self._last_saved_step = ctx.env_step
        self.resumed_from = state
        logger.info('resumed from %s at env_step=%d train_iter=%d', self.path, ctx.env_step, ctx.train_iter)
        return state

    def __call__(self, ctx: Any):
        if self._pending_resume:
            self._pending_resume = False
            self.restore(ctx)
        elif self._last_saved_step is None:
            self._last_saved_step = ctx.env_step
        yield
        finished = bool(_common.current_task().finish)
        if finished or ctx.env_step - self._last_saved_step >= self._every:
            self.save(ctx, finished)
