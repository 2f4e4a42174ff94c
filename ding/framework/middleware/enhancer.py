"""Data enhancers: rewrite or extend collected / sampled data before it is used.
`nstep_reward_enhancer`, `priority_calculator`, `reward_estimator`, `her_data_enhancer`."""
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import numpy as np

from ding.data.batch import Batch, as_batch, cat_column
from ding.framework.contract import contract, require_config
from ding.framework.middleware import _common
from ding.utils.duck_typing import optional_attr


def nstep_window(batch: Batch, end_idx: List[int], n: int) -> Batch:
    """n-step columns per docs/internals.md, computed within each env segment.

    reward -> [N, n] (zeros past the episode or segment end), next_obs / done / truncated
    -> those of the last real step of the window, nstep -> number of real steps (int64)."""
    size = len(batch)
    ends = np.asarray(end_idx if len(end_idx) else [size - 1], dtype=np.int64)
    reward, count, last = _windows(_ended(batch), np.asarray(batch['reward'], dtype=np.float32), ends, n)
    new = Batch(dict(batch.items()))
    new['reward'] = reward
    new['next_obs'] = batch['next_obs'][last]
    new['done'] = np.asarray(batch['done'])[last]
    if 'truncated' in batch:
        new['truncated'] = np.asarray(batch['truncated'])[last]
    new['nstep'] = count
    return new


def _ended(batch: Batch) -> np.ndarray:
    ended = np.asarray(batch['done'], dtype=bool)
    if 'truncated' in batch:
        ended = ended | np.asarray(batch['truncated'], dtype=bool)
    return ended


def _windows(ended: np.ndarray, reward: np.ndarray, seg_ends: np.ndarray,
             n: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The windows of rows laid out segment after segment (`seg_ends`: last row of each), as
    arrays over the rows: rewards [N, n], real steps (int64), last row of the window. A window
    ends at its n-th row, its segment's last row or its first episode end, whichever is first."""
    size = len(reward)
    rows = np.arange(size)
    seg_end = np.repeat(seg_ends, np.diff(np.concatenate([[-1], seg_ends])))
    next_end = np.minimum.accumulate(np.where(ended, rows, size)[::-1])[::-1]  # first end at or after
    last = np.minimum(np.minimum(rows + (n - 1), seg_end), next_end)
    count = last - rows + 1
    steps = np.arange(n)
    known = np.minimum(rows[:, None] + steps, size - 1)
    out = np.where(steps < count[:, None], reward[known], np.float32(0.0)).astype(np.float32, copy=False)
    return out, count, last


class NStepRewardEnhancer:
    """Rewrites `ctx.trajectories` into n-step transitions (`cfg.policy.nstep`, see
    `nstep_window`); n == 1 leaves them unchanged.

    A row's window may reach into the next collect call, so the last rows of each env (by
    `env_id`, else by segment position) after its last episode end, at most n - 1, are held
    back and emitted by a later call once their window is known. Over a run every collected
    row is emitted once, with the return a whole-episode computation gives; the rows still
    held at the end come out of `flush()`. `state_dict()` / `load_state_dict()` carry the
    held rows through a run-state checkpoint (pass this object to `RunStateSaver(extra=...)`).

    Per call the work is done on row indices, and each column is gathered once: the held rows
    of all envs are one Batch (`_held`, each env's rows a span of it), not a Batch per env.
    """

    def __init__(self, cfg: Any) -> None:
        require_config(cfg, 'nstep_reward_enhancer', 'policy.nstep')
        self.n = int(cfg.policy.nstep)
        self._held: Optional[Batch] = None
        self._spans: Dict[int, Tuple[int, int]] = {}  # env key -> (first row in _held, rows)
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
        if not self._spans:
            return Batch()
        spans = [self._spans[key] for key in sorted(self._spans)]
        held = self._held[np.concatenate([np.arange(h0, h0 + hn) for h0, hn in spans])]
        self._held, self._spans = None, {}
        return nstep_window(held, list(np.cumsum([hn for _, hn in spans]) - 1), self.n)

    def state_dict(self) -> Dict[str, Any]:
        return {'n': self.n, 'pending': {key: dict(self._held[h0:h0 + hn].items())
                                         for key, (h0, hn) in self._spans.items()}}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        if int(state['n']) != self.n:
            raise ValueError(f'nstep_reward_enhancer: checkpoint holds rows for nstep={state["n"]}, '
                             f'this run has nstep={self.n}')
        held = [(int(key), Batch(cols)) for key, cols in state['pending'].items()]
        self._held = Batch.cat([b for _, b in held]) if held else None
        first = np.concatenate([[0], np.cumsum([len(b) for _, b in held])])
        self._spans = {key: (int(first[i]), len(b)) for i, (key, b) in enumerate(held)}

    def _emit(self, batch: Batch, end_idx: List[int]) -> Tuple[Batch, List[int]]:
        """Put each env's held rows before its new rows, compute the windows, emit the rows
        whose window is complete (n rows known, or an episode end among the known rows), hold
        the rest. `order` lists the rows of `src` (held rows, then this call's) env by env."""
        ends = [int(e) for e in end_idx] if len(end_idx) else [len(batch) - 1]
        starts = [0] + [e + 1 for e in ends[:-1]]
        keys = np.asarray(batch['env_id'])[starts].tolist() if 'env_id' in batch else list(range(len(starts)))
        if self._held is not None and sorted(self._held.keys()) != sorted(batch.keys()):
            raise ValueError(f'nstep_reward_enhancer: collected columns changed between calls: held rows have '
                             f'{sorted(self._held.keys())}, new rows {sorted(batch.keys())}')
        src = _Joined(self._held, batch)
        offset = src.offset
        pieces, lengths, gaps = [], [], []
        for key, s, e in zip(keys, starts, ends):
            span = self._spans.pop(key, None)
            if span is not None:
                h0, hn = span
                gaps.append((h0 + hn - 1, offset + s))
                pieces.append(np.arange(h0, h0 + hn))
            pieces.append(np.arange(offset + s, offset + e + 1))
            lengths.append(e - s + 1 + (0 if span is None else span[1]))
        if gaps:
            _cut_at_gaps(src, np.asarray(gaps, dtype=np.int64))
        order = np.concatenate(pieces)
        seg_ends = np.cumsum(lengths) - 1
        seg_starts = seg_ends - np.asarray(lengths) + 1
        ended = _ended(src)[order]
        # Complete windows: every row up to a segment's last episode end, and any row with n - 1
        # known rows after it.
        last_end = np.maximum.reduceat(np.where(ended, np.arange(len(order)), -1), seg_starts)
        ready = np.maximum(np.maximum(last_end + 1, seg_starts), seg_ends + 2 - self.n)
        emitted = ready - seg_starts
        hold = [(key, order[r:e + 1]) for key, r, e in zip(keys, ready.tolist(), seg_ends.tolist()) if r <= e]
        out_ends = (np.cumsum(emitted) - 1)[emitted > 0].tolist()
        self._hold(src, hold)
        rows = np.flatnonzero(np.arange(len(order)) < np.repeat(ready, lengths))
        reward, count, last = _windows(ended, np.asarray(src['reward'], dtype=np.float32)[order], seg_ends, self.n)
        at_row, at_last = order[rows], order[last[rows]]
        out = {}
        for k in src.keys():
            if k == 'reward':
                out[k] = reward[rows]
            elif k == 'next_obs':
                out[k] = src.take(k, at_last)
            elif k in ('done', 'truncated'):
                out[k] = np.asarray(src[k])[at_last]
            else:
                out[k] = src.take(k, at_row)
        out['nstep'] = count[rows]
        return Batch.wrap(out), out_ends  # columns gathered above, all of len(rows)

    def _hold(self, src: '_Joined', hold: List[Tuple[int, np.ndarray]]) -> None:
        """The new held rows: those of envs absent from this call (still in `_spans`, rows of
        `src` as the old held rows come first there), then `hold`'s."""
        parts = [(key, np.arange(h0, h0 + hn)) for key, (h0, hn) in self._spans.items()] + hold
        if not parts:
            self._held, self._spans = None, {}
            return
        self._held = src.rows(np.concatenate([rows for _, rows in parts]))
        first = np.concatenate([[0], np.cumsum([len(rows) for _, rows in parts])])
        self._spans = {key: (int(first[i]), len(rows)) for i, (key, rows) in enumerate(parts)}


class _Joined:
    """The held rows followed by this call's rows, read as their concatenation would be but
    without building it: with pixel observations that copy was the enhancer's main cost. Whole
    columns (`src[k]`) are concatenated on first use, for the small ones (reward, done,
    truncated); `take` gathers rows of a column from both parts."""

    def __init__(self, held: Optional[Batch], new: Batch) -> None:
        self.held, self.new = held, new
        self.offset = 0 if held is None else len(held)
        self._whole: Dict[str, Any] = {}

    def __contains__(self, key: str) -> bool:
        return key in self.new

    def keys(self) -> List[str]:
        return self.new.keys()

    def __getitem__(self, key: str) -> Any:
        if key not in self._whole:
            self._whole[key] = self.new[key] if self.held is None else cat_column([self.held[key], self.new[key]])
        return self._whole[key]

    def __setitem__(self, key: str, column: Any) -> None:
        self._whole[key] = column

    def take(self, key: str, idx: np.ndarray) -> Any:
        if key in self._whole or self.held is None:
            return self[key][idx]
        return _take_two(self.held[key], self.new[key], self.offset, idx)

    def rows(self, idx: np.ndarray) -> Batch:
        return Batch.wrap({k: self.take(k, idx) for k in self.keys()})


def _take_two(first: Any, second: Any, offset: int, idx: np.ndarray) -> Any:
    """Rows `idx` of `first` followed by `second` (`offset` = len(first))."""
    in_first = idx < offset
    if in_first.all():
        return first[idx]
    if not in_first.any():
        return second[idx - offset]
    if isinstance(second, Batch):
        return Batch.wrap({k: _take_two(first[k], second[k], offset, idx) for k in second.keys()})
    if not (isinstance(first, np.ndarray) and isinstance(second, np.ndarray)):
        return cat_column([first, second])[idx]
    out = np.empty((len(idx), ) + second.shape[1:], dtype=np.result_type(first, second))
    out[in_first] = first[idx[in_first]]
    out[~in_first] = second[idx[~in_first] - offset]
    return out


def _cut_at_gaps(src: _Joined, rows: np.ndarray) -> None:
    """`rows`: pairs (an env's last held row, its first new row) of `src`. Held rows continue
    into the new row only if its obs is their last next_obs. It is not when an env restart
    dropped the episode right at the start of this call (the collector could not mark a row of
    an earlier call): the episode was cut short there, so the held windows end at their last
    row and bootstrap from its next_obs, as at a time limit. The replaced truncated column is
    `src`'s own (the held and new rows are left as they are)."""
    if 'next_obs' not in src or 'obs' not in src or 'truncated' not in src:
        return
    held_last, new_first = rows[:, 0], rows[:, 1]
    next_obs, obs = src.take('next_obs', held_last), src.take('obs', new_first)
    if isinstance(next_obs, np.ndarray) and isinstance(obs, np.ndarray) and next_obs.shape == obs.shape:
        same = (next_obs == obs).reshape(len(rows), -1).all(axis=1)
    else:  # dict observations, tensors: row by row
        same = np.array([np.array_equal(np.asarray(next_obs[r]), np.asarray(obs[r])) for r in range(len(rows))],
                        dtype=bool)
    if not same.all():
        truncated = np.array(src['truncated'])
        truncated[held_last[~same]] = True
        src['truncated'] = truncated


@_common.gated('learner', 'collector')
def nstep_reward_enhancer(cfg: Any) -> NStepRewardEnhancer:
    """The n-step middleware (see `NStepRewardEnhancer`); n == 1 leaves trajectories unchanged."""
    return NStepRewardEnhancer(cfg)


@_common.gated('collector')
def priority_calculator(priority_calculation_fn: Callable[[Batch], np.ndarray]) -> Any:
    """Adds a `priority` column to `ctx.trajectories` (used by data_pusher as PER priority).
    Trajectories kept as a list of transitions (from a policy that builds its own) stay a list:
    the function gets the list and each transition its `priority` (a float)."""

    def _calculate(ctx: Any) -> None:
        if isinstance(ctx.trajectories, list):
            priority = priority_calculation_fn(ctx.trajectories)
            for transition, p in zip(ctx.trajectories, priority):
                transition['priority'] = float(p)
            return
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
    size = optional_attr(her_reward_model, 'episode_size') or int(cfg.policy.learn.batch_size)
    relabel_all = optional_attr(her_reward_model, 'estimate_episodes')  # HerRewardModel's batched form

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
        elif not all(isinstance(t, (Batch, Mapping)) for t in transitions):
            # transitions that are no dicts (treetensors, say): the list as is, for a learner that takes it
            ctx.train_data = transitions
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
