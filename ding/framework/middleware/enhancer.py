"""Data enhancers: rewrite or extend collected / sampled data before it is used.
`nstep_reward_enhancer`, `priority_calculator`, `reward_estimator`, `her_data_enhancer`."""
from typing import Any, Callable, List, Mapping

import numpy as np

from ding.data.batch import Batch, as_batch
from ding.framework.contract import contract, require_config


def nstep_window(batch: Batch, end_idx: List[int], n: int) -> Batch:
    """n-step columns per docs/internals.md, computed within each env segment.

    reward -> [N, n] (zeros past the episode or segment end), next_obs / done / truncated
    -> those of the last real step of the window, nstep -> number of real steps (int64)."""
    size = len(batch)
    rows = np.arange(size)
    ends = np.asarray(end_idx if len(end_idx) else [size - 1], dtype=np.int64)
    seg_end = np.repeat(ends, np.diff(np.concatenate([[-1], ends])))
    ended = np.asarray(batch['done'], dtype=bool)
    if 'truncated' in batch:
        ended = ended | np.asarray(batch['truncated'], dtype=bool)
    reward = np.asarray(batch['reward'], dtype=np.float32)
    out = np.zeros((size, n), dtype=np.float32)
    out[:, 0] = reward
    valid = np.ones(size, dtype=bool)
    count = np.ones(size, dtype=np.int64)
    for k in range(1, n):
        nxt = np.minimum(rows + k, size - 1)
        valid = valid & (rows + k <= seg_end) & ~ended[np.minimum(rows + k - 1, size - 1)]
        out[:, k] = np.where(valid, reward[nxt], 0.0)
        count += valid
    last = rows + count - 1
    new = Batch(dict(batch.items()))
    new['reward'] = out
    new['next_obs'] = batch['next_obs'][last]
    new['done'] = np.asarray(batch['done'])[last]
    if 'truncated' in batch:
        new['truncated'] = np.asarray(batch['truncated'])[last]
    new['nstep'] = count
    return new


def nstep_reward_enhancer(cfg: Any) -> Any:
    """Rewrites `ctx.trajectories` into n-step transitions (`cfg.policy.nstep`); n == 1 leaves
    them unchanged."""
    require_config(cfg, 'nstep_reward_enhancer', 'policy.nstep')
    n = int(cfg.policy.nstep)

    def _enhance(ctx: Any) -> None:
        if n <= 1 or ctx.trajectories is None or len(ctx.trajectories) == 0:
            return
        ctx.trajectories = nstep_window(as_batch(ctx.trajectories), ctx.trajectory_end_idx, n)

    return contract(_enhance, reads=('trajectories', 'trajectory_end_idx'), writes=('trajectories', ))


def priority_calculator(priority_calculation_fn: Callable[[Batch], np.ndarray]) -> Any:
    """Adds a `priority` column to `ctx.trajectories` (used by data_pusher as PER priority)."""

    def _calculate(ctx: Any) -> None:
        batch = as_batch(ctx.trajectories)
        batch['priority'] = np.asarray(priority_calculation_fn(batch), dtype=np.float32)
        ctx.trajectories = batch

    return contract(_calculate, reads=('trajectories', ), writes=('trajectories', ))


def reward_estimator(cfg: Any, reward_model: Any) -> Any:
    """Replaces `ctx.train_data` with `reward_model.estimate(train_data)` (e.g. GAIL, RND)."""

    def _estimate(ctx: Any) -> None:
        if ctx.train_data is not None:
            estimated = reward_model.estimate(ctx.train_data)
            if estimated is not None:
                ctx.train_data = estimated

    return contract(_estimate, reads=('train_data', ), writes=('train_data', ))


def her_data_enhancer(cfg: Any, buffer_: Any, her_reward_model: Any) -> Any:
    """Samples whole episodes and relabels them with `her_reward_model.estimate(episode)`
    (-> list of relabelled episodes); w: train_data, the relabelled transitions as one Batch.
    The number of episodes is `her_reward_model.episode_size`, else the learner batch size."""
    require_config(cfg, 'her_data_enhancer', 'policy.learn.batch_size')
    size = getattr(her_reward_model, 'episode_size', None) or int(cfg.policy.learn.batch_size)

    def _enhance(ctx: Any) -> None:
        if buffer_.count() < size:
            ctx.train_data = None
            return
        episodes = [d.data if hasattr(d, 'data') else d for d in buffer_.sample(size)]
        transitions: List[Any] = []
        for episode in episodes:
            _flatten(her_reward_model.estimate(episode), transitions)
        ctx.train_data = as_batch(transitions)

    return contract(_enhance, writes=('train_data', ))


def _flatten(data: Any, out: List[Any]) -> None:
    """Nested lists of transitions -> one flat list of transitions."""
    if isinstance(data, Mapping) or not isinstance(data, (list, tuple, Batch)):
        out.append(data)
    else:
        for item in data:
            _flatten(item, out)
