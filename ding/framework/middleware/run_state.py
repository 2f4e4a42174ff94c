"""`RunStateSaver`: checkpoints that resume a run exactly.

What is saved (one file, `<exp_name>/ckpt/run_state.pt`, replaced atomically; the one it
replaces is kept as `run_state.prev.pt`, see `run_state_file.py`):
  - the learner: `policy.learn_mode.state_dict()` (model, target nets, optimizers, counters);
  - the replay buffer: the filled rows only, ids, metas, stateful buffer middleware (PER
    priorities) and the buffer's sampling generator;
  - the kept ctx counters (env_step, train_iter, last eval, ...) and total_step; the
    exploration schedule and the logger's step are functions of env_step, so they follow;
  - python, numpy and torch RNG states;
  - the collector envs, mid-episode included, through the env manager's snapshot protocol
    (`state_dict()` / `load_state_dict()`, ding/envs/env_manager/snapshot.py): serial,
    subprocess (the envs are pickled in the workers), alternating, gym_vector 'sync'.

When: at the very end of a step (this middleware is registered first, so its post-yield
part runs last), every `every_env_step` env steps and when the task finishes. Nothing is in
flight there: collected data is already in the buffer, the learner is between updates.
Restoring at the start of the next step therefore continues the same computation.
Evaluator envs need nothing: evaluations reseed them.

A manager without a snapshot (EnvPool, gym_vector 'async', an env that cannot be pickled)
never stops a run: the checkpoint records why, and resume starts fresh episodes (seeds
shifted by env_step) with the restored counters, logging a WARNING. Only the episodes that
were in flight are lost, so that run is not identical to an uninterrupted one.

The buffer lock is held only while the filled rows are gathered (a copy of `count()` rows);
the file is written after it is released.

In async mode a save waits until no step is in flight (`task.between_steps`): the steps fed
by then complete first, so the checkpoint is as consistent as in sync mode, taken a step or
two later. Exactness (a resumed run identical to an uninterrupted one) holds in sync mode only:
async runs are not deterministic.
"""
import copy
import logging
import os
import pickle
import random
from typing import Any, Dict, Optional

import cloudpickle
import numpy as np
import torch

from ding.envs.env_manager import snapshot as env_snapshot
from ding.framework.contract import contract
from ding.framework.middleware import _common
from ding.framework.middleware.run_state_file import (FORMAT_VERSION, RunStateUnreadable, arrays_as_tensors,
                                                      load_run_state_file, previous_path, read_run_state,
                                                      write_run_state)
from ding.utils.memory import release_freed_memory
from ding.utils.run_dir import RUN_STATE_NAME, remove_stale_tmp

logger = logging.getLogger('ding.run_state')
__all__ = ['RunStateSaver', 'RunStateUnreadable', 'FORMAT_VERSION', 'load_run_state', 'read_run_state']
load_run_state = load_run_state_file  # one file, with a clear error when it is unreadable


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
    """Copies of the filled rows, bookkeeping, stateful middleware (priorities) and the
    sampling generator, taken under the buffer lock; writing them needs no lock."""
    with buffer.lock:
        rows = buffer.rows_state_dict() if hasattr(buffer, 'rows_state_dict') else copy.deepcopy(buffer.state_dict())
        return {
            'buffer': rows,
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
def env_manager_state(env: Any) -> Dict[str, Any]:
    """{'snapshot': the manager's state_dict()}, or {'fresh': why there is none}."""
    if not (hasattr(env, 'state_dict') and hasattr(env, 'load_state_dict')):
        return {'fresh': f'{type(env).__name__} has no state_dict()/load_state_dict()'}
    try:
        return {'snapshot': env.state_dict()}
    except Exception as err:  # noqa: BLE001 - a run must not stop because its envs cannot be captured
        name = type(env).__name__
        return {'fresh': str(err) if str(err).startswith(name) else f'{name}: {err}'}


def load_env_manager_state(env: Any, state: Dict[str, Any], env_step: int = 0) -> Optional[str]:
    """Restore the envs; None when they continue exactly, else (after starting fresh
    episodes) the message saying why and what was done."""
    if 'kind' in state:
        state = _format1_env_state(state)
    if 'snapshot' in state:
        try:
            env.load_state_dict(state['snapshot'])
            return None
        except Exception as err:  # noqa: BLE001 - resume must go on, from fresh episodes
            reason = f'the env snapshot does not load into {type(env).__name__}: {err}'
    else:
        reason = state['fresh']
    done = env_snapshot.start_fresh_episodes(env, env_step)
    return (f'collector envs start fresh episodes at env_step={env_step} ({reason}); {done}. The episodes in '
            f'flight at the checkpoint are lost: this resumed run is not identical to an uninterrupted one')


def _format1_env_state(state: Dict[str, Any]) -> Dict[str, Any]:
    """A format-1 checkpoint's env entry in today's form."""
    if state['kind'] == 'own':
        return {'snapshot': state['state']}
    snap = {'format': env_snapshot.FORMAT, 'manager': 'BaseEnvManagerV2', 'closed': state['closed'],
            'space_rng': state['space_rng']}
    if state['closed']:
        return {'snapshot': dict(snap, env_num=None)}
    envs = pickle.loads(state['envs'])
    snap.update(env_num=len(envs), envs=[cloudpickle.dumps(e) for e in envs], fields=state['fields'])
    return {'snapshot': snap}


# --- ctx --------------------------------------------------------------------------------------
def ctx_state(ctx: Any) -> Dict[str, Any]:
    names = sorted(set(getattr(ctx, 'kept_names', ())) | {'total_step'})
    # A kept custom name that no middleware has set yet has no value to save.
    return {name: copy.deepcopy(getattr(ctx, name)) for name in names if hasattr(ctx, name)}


def load_ctx_state(ctx: Any, state: Dict[str, Any], next_step: bool) -> None:
    for name, value in state.items():
        setattr(ctx, name, value)
    extra = [n for n in state if n != 'total_step' and n not in ctx.kept_names]
    if extra:
        ctx.keep(*extra)
    if next_step:
        ctx.total_step = state['total_step'] + 1


class RunStateSaver:
    """`RunStateSaver(save_dir, policy, buffer_=None, env=None, every_env_step=10000, resume=False)`.

    Register it FIRST in the pipeline. `env` is the collector env manager. With `resume=True`
    the first step starts by restoring `<save_dir>/ckpt/run_state.pt` (or, when that one is
    unreadable, `run_state.prev.pt`, with a WARNING), so the run carries on as if never
    stopped; `extra` objects with state_dict/load_state_dict ride along.
    """

    def __init__(self, save_dir: str, policy: Any, buffer_: Any = None, env: Any = None, every_env_step: int = 10000,
                 resume: bool = False, extra: Optional[Dict[str, Any]] = None) -> None:
        if every_env_step is None or int(every_env_step) <= 0:
            raise ValueError(f'RunStateSaver: every_env_step must be a positive number of env steps, '
                             f'got {every_env_step}')
        self.ckpt_dir = os.path.join(os.fspath(save_dir), 'ckpt')
        self.path = os.path.join(self.ckpt_dir, RUN_STATE_NAME)
        self._learn = policy.learn_mode if hasattr(policy, 'learn_mode') else policy
        self._buffer, self._env, self._extra = buffer_, env, dict(extra or {})
        self._every = int(every_env_step)
        self._pending_resume = bool(resume)
        self._last_saved_step: Optional[int] = None
        self._latest_ok = True  # False after resuming from the previous file: do not keep a bad latest
        self._env_warned = False
        self._save_asked = False  # a save waits for no step in flight (async mode)
        self.resumed_from: Optional[Dict[str, Any]] = None
        if resume and not (os.path.isfile(self.path) or os.path.isfile(previous_path(self.path))):
            raise FileNotFoundError(f'cannot resume: no run-state checkpoint at {self.path}')
        contract(self, reads=('env_step', ), name='RunStateSaver')

    def capture(self, ctx: Any, finished: bool) -> Dict[str, Any]:
        return {
            'format': FORMAT_VERSION,
            'finished': finished,
            'ctx': ctx_state(ctx),
            'policy': self._learn.state_dict(),
            # arrays as tensors: streamed to the file instead of copied in memory
            'buffer': None if self._buffer is None else arrays_as_tensors(buffer_state(self._buffer)),
            'env': None if self._env is None else self._env_state(),
            'extra': {k: v.state_dict() for k, v in self._extra.items()},
            'rng': rng_state(),
        }

    def save(self, ctx: Any, finished: bool = False) -> str:
        _common.flush_writer()  # tensorboard holds every evaluation up to this checkpoint
        write_run_state(self.capture(ctx, finished), self.path, keep_previous=self._latest_ok)
        release_freed_memory()  # the checkpoint's temporaries: keeps a long run's RSS flat
        self._latest_ok = True
        self._last_saved_step = ctx.env_step
        return self.path

    def _env_state(self) -> Dict[str, Any]:
        state = env_manager_state(self._env)
        if 'fresh' in state and not self._env_warned:
            self._env_warned = True
            logger.warning('run-state checkpoints hold no collector env state (%s): a resumed run will start fresh '
                           'episodes', state['fresh'])
        return state

    def restore(self, ctx: Any) -> Dict[str, Any]:
        """Load the checkpoint into the policy, buffer, env, ctx and RNGs; returns it."""
        remove_stale_tmp(self.ckpt_dir)
        state, used, skipped = read_run_state(self.path)
        if used != self.path:
            self._latest_ok = False
            logger.warning('%s; resuming from the previous checkpoint %s (env_step=%d)', '; '.join(skipped), used,
                           state['ctx']['env_step'])
        self._learn.load_state_dict(state['policy'])
        if self._buffer is not None and state['buffer'] is not None:
            load_buffer_state(self._buffer, state['buffer'])
        if self._env is not None and state['env'] is not None:
            fresh = load_env_manager_state(self._env, state['env'], state['ctx']['env_step'])
            if fresh is not None:
                logger.warning(fresh)
        for name, obj in self._extra.items():
            if name in state['extra']:
                obj.load_state_dict(state['extra'][name])
        load_ctx_state(ctx, state['ctx'], next_step=True)
        load_rng_state(state['rng'])
        self._last_saved_step = ctx.env_step
        self.resumed_from = state
        logger.info('resumed from %s at env_step=%d train_iter=%d', used, ctx.env_step, ctx.train_iter)
        return state

    def __call__(self, ctx: Any):
        if self._pending_resume:
            self._pending_resume = False
            self.restore(ctx)
        elif self._last_saved_step is None:
            self._last_saved_step = ctx.env_step
        yield
        if self._save_asked:
            return
        if _common.current_task().finish or ctx.env_step - self._last_saved_step >= self._every:
            self._save_asked = True
            _common.between_steps(self._save_between_steps, ctx)

    def _save_between_steps(self, ctx: Any) -> None:
        self._save_asked = False
        self.save(ctx, bool(_common.current_task().finish))
