"""rlpyt's "alternating" sampler: two groups of envs in worker processes, so that the
policy forward for one group runs while the other group's envs step.

Why: with batched inference in the main process (the subprocess manager), the workers sit
idle during the forward and the main process sits idle during the step. With two groups,
each half of the envs steps while the other half's observations go through the policy,
which pays when the forward costs about as much as a step (a large model, or a GPU).

`AlternatingSampler(env_fn, cfg)` builds two `SubprocessEnvManagerV2` (envs `[0, n/2)` and
`[n/2, n)`, each with half of `worker_num`); `collect(forward, steps)` returns the same
env-major Batch `StepCollector` writes. A deterministic policy gives the data of the serial
manager with the same seed (env i is seeded `seed + i` either way).
"""
import os
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

from ding.data.batch import Batch
from ding.envs.env_manager.subprocess_env_manager import SubprocessEnvManagerV2
from ding.envs.env_manager.transition_columns import TransitionColumns


class AlternatingSampler:

    def __init__(self, env_fn: Sequence[Callable[[], Any]], cfg: Optional[Mapping] = None) -> None:
        if len(env_fn) < 2:
            raise ValueError(f'AlternatingSampler needs at least 2 envs (two groups), got {len(env_fn)}')
        cfg = dict(cfg or {})
        workers = int(cfg.get('worker_num') or os.cpu_count() or 2)
        half = len(env_fn) // 2
        self._offsets = (0, half)
        self.groups = tuple(
            SubprocessEnvManagerV2(fns, dict(cfg, worker_num=max(1, workers // 2)))
            for fns in (env_fn[:half], env_fn[half:])
        )
        self.env_num = len(env_fn)

    def seed(self, seed: int, dynamic_seed: bool = True) -> None:
        for group, offset in zip(self.groups, self._offsets):
            group.seed(int(seed) + offset, dynamic_seed)

    def launch(self) -> None:
        for group in self.groups:
            group.launch()

    @property
    def closed(self) -> bool:
        return any(group.closed for group in self.groups)

    def collect(self, forward: Callable[..., Dict[str, Any]], steps: int, kwargs: Optional[Mapping] = None,
                reset: Optional[Callable[[list], None]] = None, extra_keys: Sequence[str] = ()) -> Tuple[Batch, int]:
        """`steps` steps of every env -> (env-major Batch of `env_num * steps` rows, episodes
        ended). `forward(obs, **kwargs)` is the policy's batched forward; `reset(env_ids)`
        is called with the (global) ids of envs whose episode ended."""
        kwargs = dict(kwargs or {})
        if self.closed:
            self.launch()
        cols = TransitionColumns(self.env_num, steps, extra_keys)
        pending = [self._send(group, forward, kwargs) for group in self.groups]
        for t in range(steps):
            for k, (group, offset) in enumerate(zip(self.groups, self._offsets)):
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

    def close(self) -> None:
        for group in self.groups:
            group.close()

    @property
    def dropped_episodes(self) -> int:
        return sum(group.dropped_episodes for group in self.groups)
