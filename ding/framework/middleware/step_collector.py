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

A policy with `policy.transition_recorder` (ding/compat/policy.py) builds each transition
itself with `_process_transition`: the same loop then records its transitions per env, and
`ctx.trajectories` is the env-major list of them.

Env faults (ding/envs/env_manager/env_faults.py): a row whose episode an env restart
dropped is not a transition and is left out, so an env's segment may be a row short;
`ctx.env_restarts` and `ctx.dropped_episodes` add up the env manager's counts.
"""
from typing import Any, Dict

import numpy as np

from ding.data.batch import Batch
from ding.data.transition_columns import ColumnPool, TransitionColumns
from ding.utils.protocol_adapters import batched_env, batched_policy
from ding.envs.env_manager.env_faults import fault_counts
from ding.framework.contract import contract, require_config
from ding.framework.middleware import _common
from ding.utils.duck_typing import has_attr, optional_attr


class StepCollector(_common.Gated):
    """Collects `n_sample * unroll_len` transitions per call into `ctx.trajectories`.

    Each env takes `ceil(target / env_num)` steps, so a call yields a multiple of `env_num`
    rows. Until `ctx.env_step` reaches `random_collect_size` a random policy acts (with a
    worker actor: the actor in warm-up mode), and that first call collects the whole random
    warm-up at once.
    """
    roles = ('collector', )

    def __init__(self, cfg: Any, policy: Any, env: Any, random_collect_size: int = 0) -> None:
        require_config(cfg, 'StepCollector', 'seed', 'policy.collect.n_sample', 'policy.collect.unroll_len')
        env = batched_env(env)  # a manager written to another protocol is adapted (protocol_adapters.py)
        policy = batched_policy(policy)  # so is a policy mode
        self._policy = policy
        self._env = env
        self._target = int(cfg.policy.collect.n_sample) * int(cfg.policy.collect.unroll_len)
        if self._target <= 0:
            raise ValueError(f'StepCollector needs cfg.policy.collect.n_sample > 0, got {cfg.policy.collect.n_sample}')
        self._random_collect_size = int(random_collect_size or 0)
        self._extra_keys = tuple(optional_attr(policy, 'transition_keys', ()))
        self._column_pool = ColumnPool()  # each call's columns reuse the memory of calls nobody reads any more
        self._sampler = optional_attr(env, 'collect_steps')
        worker_actors = has_attr(env, 'collect_rollout')
        # A policy with a `transition_recorder` builds its own transitions (ding/compat/policy.py).
        make_recorder = optional_attr(policy, 'transition_recorder')
        self._recorder = make_recorder(env.env_num) if make_recorder is not None else None
        if self._recorder is not None and (worker_actors or self._sampler is not None):
            raise ValueError(f'{type(env).__name__} runs the rollout itself, which a policy with its own '
                             f'per-env _process_transition cannot join; use env_manager type base or subprocess')
        self._random_policy = None
        self._random_policy_args = (cfg.policy, policy, env) if not worker_actors else None
        # made now (it draws its seed from numpy at once, so runs repeat), or, for an env without an
        # action space yet (a duck-typed manager), at the first warm-up step
        if self._random_collect_size > 0 and not worker_actors and _common.has_attr(env, 'action_space'):
            from ding.policy import get_random_policy
            self._random_policy = get_random_policy(*self._random_policy_args)
        env.seed(cfg.seed)  # before binding a worker actor: the actors are seeded like their envs
        self._worker_link = WorkerActorLink(policy, env) if worker_actors else None
        # Our own rollout loop checks each call's columns for NaN / inf at once, so the manager
        # stops checking every step (nonfinite.py; the other paths keep the manager's checks).
        defer = optional_attr(env, 'defer_nonfinite_check')
        own_loop = self._sampler is None and not worker_actors and self._recorder is None
        self._begin_check = defer() if defer is not None and own_loop else None
        contract(self, reads=('env_step', 'collect_kwargs'),
                 writes=('trajectories', 'trajectory_end_idx', 'env_step', 'env_episode', 'env_restarts',
                         'dropped_episodes'), waits_outside_gil=_common.envs_step_outside_gil(env))

    def __call__(self, ctx: Any) -> None:
        env = self._env
        if env.closed:
            env.launch()
        warmup = ctx.env_step < self._random_collect_size
        if warmup:
            if self._random_policy is None and self._random_policy_args is not None:
                from ding.policy import get_random_policy
                self._random_policy = get_random_policy(*self._random_policy_args)
            policy, target = self._random_policy, self._random_collect_size - ctx.env_step
        else:
            policy, target = self._policy, self._target
        n_env = env.env_num
        steps = -(-target // n_env)
        restarts, dropped = fault_counts(env)
        if self._worker_link is not None:  # recollects the rows of dropped episodes
            batch, episodes = self._worker_link.collect(steps, ctx.collect_kwargs or {}, warmup)
            _check_rows(env, 'collect_rollout', batch, steps * n_env)
        elif self._sampler is not None:
            batch, episodes = self._sampler(policy.forward_batch, steps, ctx.collect_kwargs or {}, policy.reset,
                                            self._extra_keys)
            _check_rows(env, 'collect_steps', batch, steps * n_env - (fault_counts(env)[1] - dropped))
        elif self._recorder is not None:
            self._recorder.begin(ctx.train_iter)
            episodes = self._rollout(policy, env, steps, ctx.collect_kwargs or {}, self._recorder)
            batch, ctx.trajectory_end_idx = self._recorder.take_trajectories()  # a list of transitions
        else:
            cols = TransitionColumns(env.env_num, steps, self._extra_keys, self._column_pool)
            check = self._begin_check() if self._begin_check is not None else None
            episodes = self._rollout(policy, env, steps, ctx.collect_kwargs or {}, cols)
            if check is not None:  # before a row leaves for the buffer
                check(cols.cols)
            batch = cols.to_batch()
        ctx.trajectories = batch
        if self._recorder is None:
            ctx.trajectory_end_idx = segment_end_idx(batch, steps, n_env)
        ctx.env_step += len(batch)
        ctx.env_episode += episodes
        now_restarts, now_dropped = fault_counts(env)
        ctx.env_restarts += now_restarts - restarts
        ctx.dropped_episodes += now_dropped - dropped

    def state_dict(self) -> Dict[str, Any]:
        """What an exact resume needs beyond the env snapshot (pass the collector to
        `RunStateSaver(extra=...)`): the recorder of a policy that builds its own transitions
        (episode ids, the running episodes); our columns hold nothing between calls."""
        return {'recorder': self._recorder.state_dict() if self._recorder is not None else None}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        if self._recorder is not None and state.get('recorder') is not None:
            self._recorder.load_state_dict(state['recorder'])

    @staticmethod
    def _rollout(policy: Any, env: Any, steps: int, kwargs: Dict[str, Any], cols: Any) -> int:
        """`steps` steps of every env recorded into `cols`; returns the episodes ended."""
        forward, step_batch, reset = policy.forward_batch, env.step_batch, policy.reset
        obs = env.ready_obs
        for t in range(steps):
            out = forward(obs, **kwargs)
            ended = cols.record(t, 0, obs, out, step_batch(out['action']))
            if len(ended):
                reset(ended.tolist())
            obs = env.ready_obs
        return cols.episodes


class WorkerActorLink:
    """The collector's side of the worker-actor protocol (docs/internals.md): binds the
    policy's actor to the env once, then before each rollout publishes the collect model's
    weights if the policy's weight version moved since the last publish. The random warm-up
    is the actor called with `warmup=True` (uniform actions)."""

    def __init__(self, policy: Any, env: Any) -> None:
        name = type(getattr(policy, 'policy', policy)).__name__
        env_type = getattr(type(env), 'config', {}).get('type', type(env).__name__)
        make_actor = getattr(policy, 'worker_actor', None)
        try:
            actor_fn = make_actor() if make_actor is not None else None
        except NotImplementedError:
            actor_fn = None
        # what the policy stores in every transition must come back from the workers' actor
        # (R2D2's actor returns `prev_state`, its recurrent state before each step)
        returned = getattr(actor_fn, 'transition_columns', None) or {}
        missing = [k for k in getattr(policy, 'transition_keys', ()) if k not in returned]
        if missing:
            raise ValueError(f"{name} stores {missing} in every transition, which env manager type "
                             f"'{env_type}' cannot return (its workers act with their own actor); "
                             f"use env_manager type 'subprocess' or 'alternating'")
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


def segment_end_idx(batch: Batch, steps: int, n_env: int) -> list:
    """`ctx.trajectory_end_idx`: the last row of each env's segment (segments of `steps` rows,
    unless dropped rows were left out: then found from `env_id`)."""
    if len(batch) == steps * n_env:
        return list(range(steps - 1, steps * n_env, steps))
    env_id = np.asarray(batch['env_id'])
    return np.flatnonzero(np.append(env_id[1:] != env_id[:-1], True)).tolist() if len(env_id) else []


def _check_rows(env: Any, method: str, batch: Batch, expected: int) -> None:
    """`expected`: steps x envs, less the rows of episodes dropped by env restarts."""
    if len(batch) != expected:
        raise RuntimeError(f'{type(env).__name__}.{method} returned {len(batch)} rows, expected {expected} '
                           f'(steps x envs, less the rows of dropped episodes)')
