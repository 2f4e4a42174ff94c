"""`EpisodeCollector`: whole episodes, each a Batch of its transitions in time order.

Episodes still running when a call ends are carried over to the next call, so no step is
thrown away and every emitted episode is complete."""
from typing import Any, Dict, List

import numpy as np

from ding.data.batch import Batch
from ding.framework.contract import contract, require_config


class EpisodeCollector:
    """Collects `cfg.policy.collect.n_episode` finished episodes per call into `ctx.episodes`."""

    def __init__(self, cfg: Any, policy: Any, env: Any, random_collect_size: int = 0) -> None:
        require_config(cfg, 'EpisodeCollector', 'seed', 'policy.collect.n_episode')
        self._policy = policy
        self._env = env
        self._n_episode = int(cfg.policy.collect.n_episode)
        self._random_collect_size = int(random_collect_size or 0)
        self._random_policy = None
        if self._random_collect_size > 0:
            from ding.policy import get_random_policy
            self._random_policy = get_random_policy(cfg.policy, policy, env)
        self._extra_keys = tuple(getattr(policy, 'transition_keys', ()))
        self._pending: List[List[Dict[str, Any]]] = []  # per env: rows of its running episode
        env.seed(cfg.seed)
        contract(self, reads=('env_step', 'collect_kwargs'), writes=('episodes', 'env_step', 'env_episode'))

    def __call__(self, ctx: Any) -> None:
        env = self._env
        if env.closed:
            env.launch()
        if not self._pending:
            self._pending = [[] for _ in range(env.env_num)]
        random = ctx.env_step < self._random_collect_size
        policy = self._random_policy if random else self._policy
        kwargs = ctx.collect_kwargs or {}
        episodes: List[Batch] = []
        while len(episodes) < self._n_episode:
            obs = env.ready_obs
            out = policy.forward_batch(obs, **kwargs)
            result = env.step_batch(out['action'])
            ended = result.terminated | result.truncated
            for i, rows in enumerate(self._pending):
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
            ctx.env_step += env.env_num
        ctx.env_episode += len(episodes)
        ctx.episodes = episodes
