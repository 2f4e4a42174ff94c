"""Data enhancers: rewrite or extend collected / sampled data before it is used.
`nstep_reward_enhancer`, `priority_calculator`, `reward_estimator`, `her_data_enhancer`."""
from typing import Any, Callable, Dict, List, Mapping, Tuple

import numpy as np

from ding.data.batch import Batch, as_batch
from ding.framework.contract import contract, require_config
from ding.framework.middleware import _common


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


class NStepRewardEnhancer:
    """Rewrites `ctx.trajectories` into n-step transitions (`cfg.policy.nstep`, see
    `nstep_window`); n == 1 leaves them unchanged.

    A row's window may reach into the next collect call, so the last rows of each env (by
    `env_id`, else by segment position) after its last episode end, at most n - 1, are held
    back and emitted by a later call once their window is known. Over a run every collected
    row is emitted once, with the return a whole-episode computation gives; the rows still
    held at the end come out of `flush()`. `state_dict()` / `load_state_dict()` carry the
    held rows through a run-state checkpoint (pass this object to `RunStateSaver(extra=...)`).
    """

    def __init__(self, cfg: Any) -> None:
        require_config(cfg, 'nstep_reward_enhancer', 'policy.nstep')
        self.n = int(cfg.policy.nstep)
        self._pending: Dict[int, Batch] = {}
        contract(self, reads=('trajectories', 'trajectory_end_idx'), writes=('trajectories', 'trajectory_end_idx'),
                 name='nstep_reward_enhancer')

    def __call__(self, ctx: Any) -> None:
        if self.n <= 1 or ctx.trajectories is None:
            return
        batch = as_batch(ctx.trajectories)
        if len(batch) == 0:
            return
        ctx.trajectories, ctx.trajectory_end_idx = self._emit(batch, ctx.trajectory_end_idx)

    def flush(self) -> Batch:
        """The held rows with windows cut where the data ends (bootstrapping from the last
        known obs); the holding is emptied."""
        if not self._pending:
            return Batch()
        held = [self._pending.pop(key) for key in sorted(self._pending)]
        return nstep_window(Batch.cat(held), list(np.cumsum([len(h) for h in held]) - 1), self.n)

    def state_dict(self) -> Dict[str, Any]:
        return {'n': self.n, 'pending': {key: dict(b.items()) for key, b in self._pending.items()}}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        if int(state['n']) != self.n:
            raise ValueError(f'nstep_reward_enhancer: checkpoint holds rows for nstep={state["n"]}, '
                             f'this run has nstep={self.n}')
        self._pending = {int(key): Batch(cols) for key, cols in state['pending'].items()}

    def _emit(self, batch: Batch, end_idx: List[int]) -> Tuple[Batch, List[int]]:
        """Prepend each env's held rows, compute the windows, emit the rows whose window is
        complete (n rows known, or an episode end among the known rows), hold the rest."""
        ends = [int(e) for e in end_idx] if len(end_idx) else [len(batch) - 1]
        starts = [0] + [e + 1 for e in ends[:-1]]
        keys = [int(batch['env_id'][s]) if 'env_id' in batch else i for i, s in enumerate(starts)]
        parts, lengths = [], []
        for key, s, e in zip(keys, starts, ends):
            held = self._pending.pop(key, None)
            if held is not None:
                _check_columns(held, batch)
                _cut_at_gap(held, batch, s)
                parts.append(held)
            parts.append(batch[s:e + 1])
            lengths.append(e - s + 1 + (0 if held is None else len(held)))
        combined = batch if len(parts) == len(keys) else Batch.cat(parts)
        seg_ends = np.cumsum(lengths) - 1
        ended = np.asarray(combined['done'], dtype=bool)
        if 'truncated' in combined:
            ended = ended | np.asarray(combined['truncated'], dtype=bool)
        emit, out_ends, start = [], [], 0
        for key, end in zip(keys, seg_ends):
            ready = start + _complete_rows(ended[start:end + 1], self.n)
            if ready <= end:
                self._pending[key] = combined[np.arange(ready, end + 1)]
            if ready > start:
                emit.append(np.arange(start, ready))
                out_ends.append((out_ends[-1] if out_ends else -1) + ready - start)
            start = end + 1
        rows = np.concatenate(emit) if emit else np.zeros(0, dtype=np.int64)
        return nstep_window(combined, list(seg_ends), self.n)[rows], out_ends


def _cut_at_gap(held: Batch, batch: Batch, first: int) -> None:
    """Held rows continue into `batch[first]` only if its obs is their last next_obs. It is not
    when an env restart dropped the episode right at the start of this call (the collector could
    not mark a row of an earlier call): the episode was cut short there, so the held windows end
    at their last row and bootstrap from its next_obs, as at a time limit."""
    if 'next_obs' not in held or 'obs' not in batch or 'truncated' not in held:
        return
    if not np.array_equal(np.asarray(held['next_obs'][-1]), np.asarray(batch['obs'][first])):
        truncated = np.array(held['truncated'], dtype=bool)
        truncated[-1] = True
        held['truncated'] = truncated


def _complete_rows(ended: np.ndarray, n: int) -> int:
    """How many leading rows of one env's time-ordered rows have a known window: all up to
    the last episode end, and any row with n - 1 known rows after it."""
    ends = np.flatnonzero(ended)
    after_last_end = int(ends[-1]) + 1 if len(ends) else 0
    return max(after_last_end, len(ended) - (n - 1))


@_common.gated('learner', 'collector')
def nstep_reward_enhancer(cfg: Any) -> NStepRewardEnhancer:
    """The n-step middleware (see `NStepRewardEnhancer`); n == 1 leaves trajectories unchanged."""
    return NStepRewardEnhancer(cfg)


def _check_columns(held: Batch, batch: Batch) -> None:
    if sorted(held.keys()) != sorted(batch.keys()):
        raise ValueError(f'nstep_reward_enhancer: collected columns changed between calls: held rows have '
                         f'{sorted(held.keys())}, new rows {sorted(batch.keys())}')


@_common.gated('collector')
def priority_calculator(priority_calculation_fn: Callable[[Batch], np.ndarray]) -> Any:
    """Adds a `priority` column to `ctx.trajectories` (used by data_pusher as PER priority)."""

    def _calculate(ctx: Any) -> None:
        batch = as_batch(ctx.trajectories)
        batch['priority'] = np.asarray(priority_calculation_fn(batch), dtype=np.float32)
        ctx.trajectories = batch

    return contract(_calculate, reads=('trajectories', ), writes=('trajectories', ))


@_common.gated('learner')
def reward_estimator(cfg: Any, reward_model: Any) -> Any:
    """Replaces `ctx.train_data` with `reward_model.estimate(train_data)` (e.g. GAIL, RND)."""

    def _estimate(ctx: Any) -> None:
        if ctx.train_data is not None:
            estimated = reward_model.estimate(ctx.train_data)
            if estimated is not None:
                ctx.train_data = estimated

    return contract(_estimate, reads=('train_data', ), writes=('train_data', ))


@_common.gated('learner')
def her_data_enhancer(cfg: Any, buffer_: Any, her_reward_model: Any) -> Any:
    """Samples whole episodes and relabels them with `her_reward_model.estimate(episode)`
    (-> list of relabelled episodes); w: train_data, the relabelled transitions as one Batch.
    The number of episodes is `her_reward_model.episode_size`, else the learner batch size."""
    require_config(cfg, 'her_data_enhancer', 'policy.learn.batch_size')
    size = getattr(her_reward_model, 'episode_size', None) or int(cfg.policy.learn.batch_size)
    relabel_all = getattr(her_reward_model, 'estimate_episodes', None)  # HerRewardModel's batched form

    def _enhance(ctx: Any) -> None:
        if buffer_.count() < size:
            ctx.train_data = None
            return
        episodes = [d.data if hasattr(d, 'data') else d for d in buffer_.sample(size)]
        if relabel_all is not None:  # one pass over the joined columns of all sampled episodes
            ctx.train_data = relabel_all(episodes)
            return
        transitions: List[Any] = []
        for episode in episodes:
            _flatten(her_reward_model.estimate(episode), transitions)
        if transitions and all(isinstance(t, Batch) for t in transitions):  # ours relabels whole columns
            ctx.train_data = Batch.cat(transitions)
        else:
            ctx.train_data = as_batch([row for t in transitions for row in (t if isinstance(t, Batch) else [t])])

    return contract(_enhance, writes=('train_data', ))


def _flatten(data: Any, out: List[Any]) -> None:
    """Nested lists of transitions (or Batches of them) -> one flat list of transitions and Batches."""
    if isinstance(data, Batch):
        out.append(data)
    elif isinstance(data, Mapping) or not isinstance(data, (list, tuple)):
        out.append(data)
    else:
        for item in data:
            _flatten(item, out)
