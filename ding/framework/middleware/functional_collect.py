"""`inferencer` + `rolloutor`: collection split into two middlewares (the functional
form), for pipelines that act on `ctx.obs` / `ctx.action` between the two.
`TransitionList` keeps the per-step columns and turns them into one env-major Batch; a row
whose episode an env restart dropped (ding/envs/env_manager/env_faults.py) is left out of it,
and the env's previous row is marked truncated, as `TransitionColumns` does."""
from typing import Any, Dict, List, Tuple

import numpy as np

from ding.data.batch import Batch
from ding.utils.protocol_adapters import batched_env, batched_policy
from ding.envs.env_manager.env_faults import dropped_rows, fault_counts
from ding.framework.contract import contract
from ding.framework.middleware import _common
from ding.utils.duck_typing import optional_attr


class TransitionList:
    """Per-step column dicts for `env_num` envs -> one env-major Batch on demand."""

    def __init__(self, env_num: int) -> None:
        self.env_num = env_num
        self._steps: List[Dict[str, np.ndarray]] = []
        self._dropped: List[Tuple[int, np.ndarray]] = []  # (step, env ids) of rows to leave out

    def append(self, step: Dict[str, Any], dropped: Any = ()) -> None:
        """One step of every env; `dropped`: env ids whose row is no transition (a restart
        dropped their episode)."""
        if len(dropped):
            self._dropped.append((len(self._steps), np.asarray(dropped, dtype=np.int64)))
        self._steps.append(step)

    def __len__(self) -> int:
        return len(self._steps) * self.env_num - sum(len(ids) for _, ids in self._dropped)

    def clear(self) -> None:
        self._steps, self._dropped = [], []

    def to_trajectories(self) -> Tuple[Batch, List[int]]:
        steps = len(self._steps)
        if steps == 0:
            return Batch(), []
        cols = {}
        for k in self._steps[0]:
            stacked = np.stack([np.asarray(s[k]) for s in self._steps], axis=1)  # [B, T, ...]
            cols[k] = stacked.reshape((self.env_num * steps, ) + stacked.shape[2:])
        cols['env_id'] = np.repeat(np.arange(self.env_num, dtype=np.int64), steps)
        if not self._dropped:
            return Batch(cols), list(range(steps - 1, steps * self.env_num, steps))
        keep = np.ones((self.env_num, steps), dtype=bool)
        for t, ids in self._dropped:
            keep[ids, t] = False
            if t > 0:  # the last real step of the dropped episode: cut short there
                prev = ids * steps + t - 1
                prev = prev[keep[ids, t - 1] & ~np.asarray(cols['done'][prev], dtype=bool)]
                cols['truncated'][prev] = True
        kept = keep.reshape(-1)
        cols = {k: v[kept] for k, v in cols.items()}
        env_id = cols['env_id']
        return Batch(cols), np.flatnonzero(np.append(env_id[1:] != env_id[:-1], True)).tolist()


def inferencer(seed: int, policy: Any, env: Any) -> Any:
    """Acts on the stacked ready observations; w: obs, action, inference_output.

    `ctx.inference_output` is the policy's output: our policies' batched dict, or, for a policy
    without `forward_batch` (adapted, ding/utils/protocol_adapters.py), its own `{env_id: output}`."""
    env, policy = batched_env(env), batched_policy(policy)
    env.seed(seed)

    def _inference(ctx: Any) -> None:
        if env.closed:
            env.launch()
        ctx.obs = env.ready_obs
        out = policy.forward_batch(ctx.obs, **(ctx.collect_kwargs or {}))
        ctx.action = out['action']
        ctx.inference_output = optional_attr(out, 'per_env', out)

    return contract(_inference, reads=('collect_kwargs', ), writes=('obs', 'action', 'inference_output'))


def rolloutor(policy: Any, env: Any, transitions: TransitionList) -> Any:
    """Steps the envs with `ctx.action` and appends the transitions; w: env_step, env_episode."""
    env, policy = batched_env(env), batched_policy(policy)
    extra_keys = tuple(optional_attr(policy, 'transition_keys', ()))

    def _rollout(ctx: Any) -> None:
        restarts, dropped_before = fault_counts(env)
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
        ended = np.flatnonzero(result.terminated | result.truncated)
        dropped = dropped_rows(result, ended) if len(ended) else ()
        transitions.append(step, dropped)
        if len(ended):
            policy.reset(ended.tolist())
        ctx.env_step += env.env_num - len(dropped)
        ctx.env_episode += len(ended) - len(dropped)
        now_restarts, now_dropped = fault_counts(env)
        ctx.env_restarts += now_restarts - restarts
        ctx.dropped_episodes += now_dropped - dropped_before

    return contract(_rollout, reads=('obs', 'action', 'inference_output'),
                    writes=('env_step', 'env_episode', 'env_restarts', 'dropped_episodes'),
                    waits_outside_gil=_common.envs_step_outside_gil(env))
