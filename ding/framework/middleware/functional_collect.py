"""`inferencer` + `rolloutor`: collection split into two middlewares (DI-engine's functional
form), for pipelines that act on `ctx.obs` / `ctx.action` between the two.
`TransitionList` keeps the per-step columns and turns them into one env-major Batch."""
from typing import Any, Dict, List, Tuple

import numpy as np

from ding.data.batch import Batch
from ding.framework.contract import contract


class TransitionList:
    """Per-step column dicts for `env_num` envs -> one env-major Batch on demand."""

    def __init__(self, env_num: int) -> None:
        self.env_num = env_num
        self._steps: List[Dict[str, np.ndarray]] = []

    def append(self, step: Dict[str, Any]) -> None:
        self._steps.append(step)

    def __len__(self) -> int:
        return len(self._steps) * self.env_num

    def clear(self) -> None:
        self._steps = []

    def to_trajectories(self) -> Tuple[Batch, List[int]]:
        steps = len(self._steps)
        if steps == 0:
            return Batch(), []
        cols = {}
        for k in self._steps[0]:
            stacked = np.stack([np.asarray(s[k]) for s in self._steps], axis=1)  # [B, T, ...]
            cols[k] = stacked.reshape((self.env_num * steps, ) + stacked.shape[2:])
        cols['env_id'] = np.repeat(np.arange(self.env_num, dtype=np.int64), steps)
        return Batch(cols), list(range(steps - 1, steps * self.env_num, steps))


def inferencer(seed: int, policy: Any, env: Any) -> Any:
    """Acts on the stacked ready observations; w: obs, action, inference_output."""
    env.seed(seed)

    def _inference(ctx: Any) -> None:
        if env.closed:
            env.launch()
        ctx.obs = env.ready_obs
        ctx.inference_output = policy.forward_batch(ctx.obs, **(ctx.collect_kwargs or {}))
        ctx.action = ctx.inference_output['action']

    return contract(_inference, reads=('collect_kwargs', ), writes=('obs', 'action', 'inference_output'))


def rolloutor(policy: Any, env: Any, transitions: TransitionList) -> Any:
    """Steps the envs with `ctx.action` and appends the transitions; w: env_step, env_episode."""
    extra_keys = tuple(getattr(policy, 'transition_keys', ()))

    def _rollout(ctx: Any) -> None:
        result = env.step_batch(ctx.action)
        step = {
            'obs': ctx.obs,
            'action': ctx.action,
            'reward': np.asarray(result.reward, dtype=np.float32),
            'next_obs': result.next_obs,
            'done': result.terminated,
            'truncated': result.truncated,
        }
        for k in extra_keys:
            if k in ctx.inference_output:
                step[k] = ctx.inference_output[k]
        transitions.append(step)
        ended = np.flatnonzero(result.terminated | result.truncated)
        if len(ended):
            policy.reset(ended.tolist())
        ctx.env_step += env.env_num
        ctx.env_episode += len(ended)

    return contract(_rollout, reads=('obs', 'action', 'inference_output'), writes=('env_step', 'env_episode'))
