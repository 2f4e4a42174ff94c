"""`StepCollector`: the collection hot path.

One policy forward on the stacked observations and one `env.step_batch` per env step; the
results go straight into `[B, T]` arrays allocated once per call, so the emitted Batch is
env-major (all rows of env 0 in time order, then env 1, ...) by a reshape, without a copy.

An env that offers the sampler protocol (`env.collect_steps(forward, steps, kwargs, reset,
extra_keys) -> (Batch, episodes)`, docs/internals.md) runs the rollout itself, e.g. the
alternating sampler overlapping one env group's forward with the other's step; the ctx
fields written are the same either way.
"""
from typing import Any, Dict, List

import numpy as np

from ding.data.batch import Batch
from ding.framework.contract import contract, require_config


class StepCollector:
    """Collects `n_sample * unroll_len` transitions per call into `ctx.trajectories`.

    Each env takes `ceil(target / env_num)` steps, so a call yields a multiple of `env_num`
    rows. Until `ctx.env_step` reaches `random_collect_size` a random policy acts, and that
    first call collects the whole random warm-up at once.
    """

    def __init__(self, cfg: Any, policy: Any, env: Any, random_collect_size: int = 0) -> None:
        require_config(cfg, 'StepCollector', 'seed', 'policy.collect.n_sample', 'policy.collect.unroll_len')
        self._policy = policy
        self._env = env
        self._target = int(cfg.policy.collect.n_sample) * int(cfg.policy.collect.unroll_len)
        if self._target <= 0:
            raise ValueError(f'StepCollector needs cfg.policy.collect.n_sample > 0, got {cfg.policy.collect.n_sample}')
        self._random_collect_size = int(random_collect_size or 0)
        self._random_policy = None
        if self._random_collect_size > 0:
            from ding.policy import get_random_policy
            self._random_policy = get_random_policy(cfg.policy, policy, env)
        self._extra_keys = tuple(getattr(policy, 'transition_keys', ()))
        self._sampler = getattr(env, 'collect_steps', None)
        env.seed(cfg.seed)
        contract(self, reads=('env_step', 'collect_kwargs'),
                 writes=('trajectories', 'trajectory_end_idx', 'env_step', 'env_episode'))

    def __call__(self, ctx: Any) -> None:
        env = self._env
        if env.closed:
            env.launch()
        if ctx.env_step < self._random_collect_size:
            policy, target = self._random_policy, self._random_collect_size - ctx.env_step
        else:
            policy, target = self._policy, self._target
        n_env = env.env_num
        steps = -(-target // n_env)
        if self._sampler is not None:
            batch, episodes = self._sample(policy, steps, n_env, ctx.collect_kwargs or {})
        else:
            batch, episodes = self._rollout(policy, env, steps, ctx.collect_kwargs or {})
        ctx.trajectories = batch
        ctx.trajectory_end_idx = list(range(steps - 1, steps * n_env, steps))
        ctx.env_step += steps * n_env
        ctx.env_episode += episodes

    def _sample(self, policy: Any, steps: int, n_env: int, kwargs: Dict[str, Any]):
        """The rollout run by the env's sampler protocol."""
        batch, episodes = self._sampler(policy.forward_batch, steps, kwargs, policy.reset, self._extra_keys)
        if len(batch) != steps * n_env:
            raise RuntimeError(f'{type(self._env).__name__}.collect_steps returned {len(batch)} rows, '
                               f'expected {steps} steps x {n_env} envs = {steps * n_env}')
        return batch, episodes

    def _rollout(self, policy: Any, env: Any, steps: int, kwargs: Dict[str, Any]):
        forward, step_batch, reset = policy.forward_batch, env.step_batch, policy.reset
        obs = env.ready_obs
        cols = None
        episodes = 0
        for t in range(steps):
            out = forward(obs, **kwargs)
            action = out['action']
            result = step_batch(action)
            if cols is None:
                cols = _allocate(steps, obs, out, result, self._extra_keys)
            ended = result.terminated | result.truncated
            cols['obs'][:, t] = obs
            cols['action'][:, t] = action
            cols['reward'][:, t] = result.reward
            cols['next_obs'][:, t] = result.next_obs
            cols['done'][:, t] = result.terminated
            cols['truncated'][:, t] = result.truncated
            for k in self._extra_keys:
                if k in out:
                    cols[k][:, t] = out[k]
            if ended.any():
                ids = np.flatnonzero(ended)
                episodes += len(ids)
                reset(ids.tolist())
            obs = env.ready_obs
        n_env = len(cols['reward'])
        flat = {k: v.reshape((n_env * steps, ) + v.shape[2:]) for k, v in cols.items()}
        flat['env_id'] = np.repeat(np.arange(n_env, dtype=np.int64), steps)
        return Batch(flat), episodes


def _column(steps: int, value: Any, dtype: Any = None) -> np.ndarray:
    value = np.asarray(value)
    return np.empty((value.shape[0], steps) + value.shape[1:], dtype=dtype or value.dtype)


def _allocate(steps: int, obs: Any, out: Dict[str, Any], result: Any, extra_keys: List[str]) -> Dict[str, np.ndarray]:
    """Fresh `[B, T, ...]` arrays for one call, shaped from the first step."""
    obs_dtype = np.float32 if np.asarray(obs).dtype == np.float64 else None
    cols = {
        'obs': _column(steps, obs, obs_dtype),
        'action': _column(steps, out['action']),
        'reward': _column(steps, result.reward, np.float32),
        'next_obs': _column(steps, result.next_obs, obs_dtype),
        'done': _column(steps, result.terminated, np.bool_),
        'truncated': _column(steps, result.truncated, np.bool_),
    }
    for k in extra_keys:
        if k in out:
            cols[k] = _column(steps, out[k])
    return cols
