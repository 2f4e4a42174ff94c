"""rlpyt's "alternating" sampler: two groups of envs in worker processes, so that the
policy forward for one group runs while the other group's envs step.

Why: with batched inference in the main process (the subprocess manager), the workers sit
idle during the forward and the main process sits idle during the step. With two groups,
each half of the envs steps while the other half's observations go through the policy,
which pays when the forward costs about as much as a step (a large model, or a GPU).

`AlternatingSampler(env_fn, cfg)` (`env_manager.type='alternating'`) builds two
`SubprocessEnvManagerV2` (envs `[0, n/2)` and `[n/2, n)`, each with half of `worker_num`).
As a manager (`GroupedEnvManager`) it serves the evaluator; `collect_steps` is the sampler
protocol `StepCollector` delegates its rollout to (docs/internals.md, "Env managers"). A
deterministic policy gives the data of the serial manager with the same seed (env i is
seeded `seed + i` either way).
"""
import os
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

from easydict import EasyDict

from ding.data.batch import Batch
from ding.envs.env_manager.grouped_env_manager import GroupedEnvManager
from ding.envs.env_manager.subprocess_env_manager import SubprocessEnvManagerV2
from ding.data.transition_columns import ColumnPool, TransitionColumns
from ding.config.schema import plain
from ding.utils.dicts import deep_merge
from ding.utils.registry import ENV_MANAGER_REGISTRY


@ENV_MANAGER_REGISTRY.register('alternating')
class AlternatingSampler(GroupedEnvManager):
    """`AlternatingSampler(env_fn=[callable, ...], cfg=cfg.env.manager)`, at least 2 envs.
    Takes every key of the subprocess manager; `worker_num` counts the workers of both
    groups together (at least one per group)."""
    config = dict(
        type='alternating',
        worker_num=None,  # both groups together; None: one per CPU core
    )

    @classmethod
    def default_config(cls) -> EasyDict:
        cfg = deep_merge(SubprocessEnvManagerV2.default_config(), plain(cls.config))
        cfg.cfg_type = cls.__name__ + 'Dict'
        return cfg

    def __init__(self, env_fn: Sequence[Callable[[], Any]], cfg: Optional[Mapping] = None) -> None:
        if len(env_fn) < 2:
            raise ValueError(f'AlternatingSampler needs at least 2 envs (two groups), got {len(env_fn)}')
        self._cfg = deep_merge(self.default_config(), cfg or {})
        workers = int(self._cfg.worker_num or os.cpu_count() or 2)
        group_cfg = dict(self._cfg, type='subprocess', worker_num=max(1, workers // 2))
        half = len(env_fn) // 2
        super().__init__([SubprocessEnvManagerV2(fns, group_cfg) for fns in (env_fn[:half], env_fn[half:])])
        self._column_pool = ColumnPool()

    def collect_steps(self, forward: Callable[..., Dict[str, Any]], steps: int, kwargs: Optional[Mapping] = None,
                      reset: Optional[Callable[[list], None]] = None,
                      extra_keys: Sequence[str] = ()) -> Tuple[Batch, int]:
        """The sampler protocol: `steps` steps of every env -> (env-major Batch of
        `env_num * steps` rows, episodes ended). `forward(obs, **kwargs)` is the policy's
        batched forward, called on one group's rows at a time (so it must act row by row);
        `reset(env_ids)` gets the global ids of envs whose episode ended. Needs envs that
        auto-reset (the default `auto_reset=True`, `episode_num=inf`)."""
        kwargs = dict(kwargs or {})
        if self.closed:
            self.launch()
        cols = TransitionColumns(self.env_num, steps, extra_keys, self._column_pool)
        pending = [self._send(group, forward, kwargs) for group in self.groups]
        for t in range(steps):
            for k, (group, offset, _) in enumerate(self._spans()):
                obs, out = pending[k]
                result = group.step_batch_wait()
                ended = cols.record(t, offset, obs, out, result)
                if reset is not None and len(ended):
                    reset((ended + offset).tolist())
                if t + 1 < steps:  # this forward overlaps the other group's step
                    pending[k] = self._send(group, forward, kwargs)
        return cols.to_batch(), cols.episodes

    @staticmethod
    def _send(group: SubprocessEnvManagerV2, forward: Callable, kwargs: Mapping) -> tuple:
        obs = group.ready_obs
        out = forward(obs, **kwargs)
        group.step_batch_async(out['action'])
        return obs, out
