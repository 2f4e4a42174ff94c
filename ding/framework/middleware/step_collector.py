"""`StepCollector`: the collection hot path.

One policy forward on the stacked observations and one `env.step_batch` per env step; the
results go straight into `[B, T]` arrays allocated once per call, so the emitted Batch is
env-major (all rows of env 0 in time order, then env 1, ...) by a reshape, without a copy.

An env that offers the sampler protocol (`env.collect_steps(forward, steps, kwargs, reset,
extra_keys) -> (Batch, episodes)`, docs/internals.md) runs the rollout itself, e.g. the
alternating sampler overlapping one env group's forward with the other's step. An env that
offers the worker-actor protocol (`env.bind_actor`, `env.collect_rollout`, the
'worker_inference' manager) acts itself, in its workers, with the policy's actor
(`policy.worker_actor()`); the collector only publishes the collect weights when they moved.
The ctx fields written are the same either way.
"""
from typing import Any, Dict

from ding.data.batch import Batch
from ding.data.transition_columns import TransitionColumns
from ding.framework.contract import contract, require_config


class StepCollector:
    """Collects `n_sample * unroll_len` transitions per call into `ctx.trajectories`.

    Each env takes `ceil(target / env_num)` steps, so a call yields a multiple of `env_num`
    rows. Until `ctx.env_step` reaches `random_collect_size` a random policy acts (with a
    worker actor: the actor in warm-up mode), and that first call collects the whole random
    warm-up at once.
    """

    def __init__(self, cfg: Any, policy: Any, env: Any, random_collect_size: int = 0) -> None:
        require_config(cfg, 'StepCollector', 'seed', 'policy.collect.n_sample', 'policy.collect.unroll_len')
        self._policy = policy
        self._env = env
        self._target = int(cfg.policy.collect.n_sample) * int(cfg.policy.collect.unroll_len)
        if self._target <= 0:
            raise ValueError(f'StepCollector needs cfg.policy.collect.n_sample > 0, got {cfg.policy.collect.n_sample}')
        self._random_collect_size = int(random_collect_size or 0)
        self._extra_keys = tuple(getattr(policy, 'transition_keys', ()))
        self._sampler = getattr(env, 'collect_steps', None)
        worker_actors = hasattr(env, 'collect_rollout')
        self._random_policy = None
        if self._random_collect_size > 0 and not worker_actors:
            from ding.policy import get_random_policy
            self._random_policy = get_random_policy(cfg.policy, policy, env)
        env.seed(cfg.seed)  # before binding a worker actor: the actors are seeded like their envs
        self._worker_link = WorkerActorLink(policy, env) if worker_actors else None
        contract(self, reads=('env_step', 'collect_kwargs'),
                 writes=('trajectories', 'trajectory_end_idx', 'env_step', 'env_episode'))

    def __call__(self, ctx: Any) -> None:
        env = self._env
        if env.closed:
            env.launch()
        warmup = ctx.env_step < self._random_collect_size
        if warmup:
            policy, target = self._random_policy, self._random_collect_size - ctx.env_step
        else:
            policy, target = self._policy, self._target
        n_env = env.env_num
        steps = -(-target // n_env)
        if self._worker_link is not None:
            batch, episodes = self._worker_link.collect(steps, ctx.collect_kwargs or {}, warmup)
            _check_rows(env, 'collect_rollout', batch, steps, n_env)
        elif self._sampler is not None:
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
        _check_rows(self._env, 'collect_steps', batch, steps, n_env)
        return batch, episodes

    def _rollout(self, policy: Any, env: Any, steps: int, kwargs: Dict[str, Any]):
        forward, step_batch, reset = policy.forward_batch, env.step_batch, policy.reset
        cols = TransitionColumns(env.env_num, steps, self._extra_keys)
        obs = env.ready_obs
        for t in range(steps):
            out = forward(obs, **kwargs)
            ended = cols.record(t, 0, obs, out, step_batch(out['action']))
            if len(ended):
                reset(ended.tolist())
            obs = env.ready_obs
        return cols.to_batch(), cols.episodes


class WorkerActorLink:
    """The collector's side of the worker-actor protocol (docs/internals.md): binds the
    policy's actor to the env once, then before each rollout publishes the collect model's
    weights if the policy's weight version moved since the last publish. The random warm-up
    is the actor called with `warmup=True` (uniform actions)."""

    def __init__(self, policy: Any, env: Any) -> None:
        name = type(getattr(policy, 'policy', policy)).__name__
        env_type = getattr(type(env), 'config', {}).get('type', type(env).__name__)
        keys = tuple(getattr(policy, 'transition_keys', ()))
        if keys:
            raise ValueError(f"{name} stores {list(keys)} in every transition, which env manager type "
                             f"'{env_type}' cannot return (its workers act with their own actor); "
                             f"use env_manager type 'subprocess' or 'alternating'")
        make_actor = getattr(policy, 'worker_actor', None)
        try:
            actor_fn = make_actor() if make_actor is not None else None
        except NotImplementedError:
            actor_fn = None
        if actor_fn is None:
            raise ValueError(f"{name} cannot act inside env workers (no collect_mode.worker_actor()), which env "
                             f"manager type '{env_type}' needs; use env_manager type 'subprocess' or "
                             f"'alternating'")
        self._policy, self._env = policy, env
        self._version, state = policy.worker_weights(None)
        env.bind_actor(actor_fn, state)

    def collect(self, steps: int, kwargs: Dict[str, Any], warmup: bool):
        """`steps` steps of every env -> (Batch, episodes ended)."""
        update = self._policy.worker_weights(self._version)
        publish = None
        if update is not None:
            self._version, publish = update
        if warmup:
            kwargs = dict(kwargs, warmup=True)
        return self._env.collect_rollout(steps, kwargs, publish=publish)


def _check_rows(env: Any, method: str, batch: Batch, steps: int, n_env: int) -> None:
    if len(batch) != steps * n_env:
        raise RuntimeError(f'{type(env).__name__}.{method} returned {len(batch)} rows, '
                           f'expected {steps} steps x {n_env} envs = {steps * n_env}')
