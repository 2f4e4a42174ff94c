"""`EpisodeCollector`: whole episodes, each a Batch of its transitions in time order.

Episodes still running when a call ends are carried over to the next call, so no step is
thrown away and every emitted episode is complete. An episode an env restart dropped
(ding/envs/env_manager/env_faults.py) is incomplete: its rows are thrown away, and the
env's next episode replaces it."""
from typing import Any, Dict, List

import numpy as np

from ding.data.batch import Batch
from ding.utils.protocol_adapters import batched_env, batched_policy
from ding.envs.env_manager.env_faults import dropped_rows, fault_counts
from ding.framework.contract import contract, require_config
from ding.framework.middleware import _common
from ding.utils.duck_typing import optional_attr


class EpisodeCollector(_common.Gated):
    """Collects `cfg.policy.collect.n_episode` finished episodes per call into `ctx.episodes`."""
    roles = ('collector', )

    def __init__(self, cfg: Any, policy: Any, env: Any, random_collect_size: int = 0) -> None:
        require_config(cfg, 'EpisodeCollector', 'seed', 'policy.collect.n_episode')
        env = batched_env(env)  # a manager written to another protocol is adapted (protocol_adapters.py)
        policy = batched_policy(policy)  # so is a policy mode
        self._policy = policy
        self._env = env
        self._n_episode = int(cfg.policy.collect.n_episode)
        self._random_collect_size = int(random_collect_size or 0)
        self._random_policy = None
        self._random_policy_args = (cfg.policy, policy, env)
        # made now (it draws its seed from numpy at once, so runs repeat), or, for an env without an
        # action space yet (a duck-typed manager), at the first warm-up call
        if self._random_collect_size > 0 and _common.has_attr(env, 'action_space'):
            from ding.policy import get_random_policy
            self._random_policy = get_random_policy(*self._random_policy_args)
        self._extra_keys = tuple(optional_attr(policy, 'transition_keys', ()))
        self._pending: List[List[Dict[str, Any]]] = []  # per env: rows of its running episode
        # A policy with a `transition_recorder` builds its own transitions (ding/compat/policy.py).
        make_recorder = optional_attr(policy, 'transition_recorder')
        self._recorder = make_recorder(env.env_num) if make_recorder is not None else None
        env.seed(cfg.seed)
        contract(self, reads=('env_step', 'collect_kwargs'),
                 writes=('episodes', 'env_step', 'env_episode', 'env_restarts', 'dropped_episodes'),
                 waits_outside_gil=_common.envs_step_outside_gil(env))

    def __call__(self, ctx: Any) -> None:
        env = self._env
        if env.closed:
            env.launch()
        if not self._pending:
            self._pending = [[] for _ in range(env.env_num)]
        random = ctx.env_step < self._random_collect_size
        if random and self._random_policy is None:
            from ding.policy import get_random_policy
            self._random_policy = get_random_policy(*self._random_policy_args)
        policy = self._random_policy if random else self._policy
        kwargs = ctx.collect_kwargs or {}
        restarts, dropped_before = fault_counts(env)
        collect = self._collect_with_recorder if self._recorder is not None else self._collect
        episodes = collect(ctx, policy, kwargs)
        ctx.env_episode += len(episodes)
        ctx.episodes = episodes
        now_restarts, now_dropped = fault_counts(env)
        ctx.env_restarts += now_restarts - restarts
        ctx.dropped_episodes += now_dropped - dropped_before

    def state_dict(self) -> Dict[str, Any]:
        """The episodes still running (pass the collector to `RunStateSaver(extra=...)`, so a
        resumed run emits them whole): our rows, or the recorder of a policy that builds its own transitions."""
        return {'pending': [list(rows) for rows in self._pending],
                'recorder': self._recorder.state_dict() if self._recorder is not None else None}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self._pending = [list(rows) for rows in state['pending']]
        if self._recorder is not None and state.get('recorder') is not None:
            self._recorder.load_state_dict(state['recorder'])

    def _collect_with_recorder(self, ctx: Any, policy: Any, kwargs: Dict[str, Any]) -> List[list]:
        """A policy with a `transition_recorder`: each episode a list of the policy's own transitions."""
        env, recorder = self._env, self._recorder
        recorder.begin(ctx.train_iter)
        while recorder.episodes < self._n_episode:
            obs = env.ready_obs
            out = policy.forward_batch(obs, **kwargs)
            result = env.step_batch(out['action'])
            ended = recorder.record(0, 0, obs, out, result)
            if len(ended):
                policy.reset(ended.tolist())
            ctx.env_step += env.env_num - len(dropped_rows(result, ended))
        return recorder.take_episodes()

    def _collect(self, ctx: Any, policy: Any, kwargs: Dict[str, Any]) -> List[Batch]:
        env = self._env
        episodes: List[Batch] = []
        while len(episodes) < self._n_episode:
            obs = env.ready_obs
            out = policy.forward_batch(obs, **kwargs)
            result = env.step_batch(out['action'])
            ended = result.terminated | result.truncated
            dropped = set(dropped_rows(result, np.flatnonzero(ended)).tolist()) if ended.any() else ()
            for i in dropped:  # no transition on this step, and the episode so far is incomplete
                self._pending[i] = []
            for i, rows in enumerate(self._pending):
                if i in dropped:
                    continue
                row = {
                    'obs': obs[i],
                    'action': out['action'][i],
                    'reward': np.float32(result.reward[i]),
                    'next_obs': result.next_obs[i],
                    'done': bool(result.terminated[i]),
                    'truncated': bool(result.truncated[i]),
                    'env_id': np.int64(i),
                }
                row.update({k: out[k][i] for k in self._extra_keys if k in out})
                rows.append(row)
                if ended[i]:
                    episodes.append(Batch.from_rows(rows))
                    self._pending[i] = []
            if ended.any():
                policy.reset(np.flatnonzero(ended).tolist())
            ctx.env_step += env.env_num - len(dropped)
        return episodes
