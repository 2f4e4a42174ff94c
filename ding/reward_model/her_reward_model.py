"""`HerRewardModel`: hindsight experience replay (Andrychowicz et al. 2017).

A failed episode still shows how to reach the states it did reach. HER copies some of its
transitions with the desired goal replaced by a goal the episode achieved later, and rewards
them as if that had been the goal. With a sparse goal reward (bit flipping) that turns episodes
that never succeed into a learning signal.

Observations are `[observation, desired goal]` concatenated in halves, and the goal a state
achieves is its observation half (the default split; pass `split_func`, `merge_func`
and `goal_reward_func` for anything else). Config, `cfg.policy.other.her`:
- `her_strategy`: where the new goal comes from, relative to transition t of an episode of T:
  'future' (next_obs of a step in [t, T)), 'final' (next_obs of the last step), 'episode'
  (next_obs of any step);
- `her_replay_k`: relabelled copies made of each chosen transition (default 1);
- `episode_size`: episodes per learner batch (None: `policy.learn.batch_size`);
- `sample_per_episode`: transitions drawn from each episode (None: all of them).
So a learner batch holds `episode_size * sample_per_episode * her_replay_k` transitions.
- `done_on_goal` (ours, default False): the env ends an episode when its goal is
  reached (bit flipping does), so a relabelled transition is terminal exactly when it reaches
  its new goal; with False the original `done` is kept.
"""
from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import torch

from ding.data.batch import Batch, Row, as_batch

STRATEGIES = ('final', 'future', 'episode')


class HerRewardModel:
    """`HerRewardModel(cfg, cuda=False)`; `estimate(episode)` -> `her_replay_k` relabelled
    episodes, each a Batch of transitions (the input is left as it was). Relabelling runs on
    the CPU whatever `cuda` says."""

    def __init__(self, cfg: Mapping, cuda: bool = False) -> None:
        strategy = cfg.get('her_strategy')
        if strategy not in STRATEGIES:
            raise ValueError(f'HerRewardModel: her_strategy must be one of {STRATEGIES}, got {strategy!r}')
        self._her_strategy = strategy
        self._her_replay_k = _positive_int(cfg.get('her_replay_k', 1) or 1, 'her_replay_k')
        size, per_episode = cfg.get('episode_size', None), cfg.get('sample_per_episode', None)
        self._episode_size = None if size is None else _positive_int(size, 'episode_size')
        self._sample_per_episode = None if per_episode is None else _positive_int(per_episode, 'sample_per_episode')
        self._done_on_goal = bool(cfg.get('done_on_goal', False))
        # drawn from numpy's global RNG, so set_pkg_seed(seed) before construction fixes the relabelling
        self._rng = np.random.default_rng(np.random.randint(2**31))

    @property
    def episode_size(self) -> Optional[int]:
        return self._episode_size

    @property
    def sample_per_episode(self) -> Optional[int]:
        return self._sample_per_episode

    def estimate(self, episode: Any, merge_func: Optional[Callable] = None, split_func: Optional[Callable] = None,
                 goal_reward_func: Optional[Callable] = None) -> List[Batch]:
        """Relabel transitions of one episode (a Batch, or a list of transitions in time order).

        Returns `her_replay_k` Batches of the chosen transitions, each with new `obs`, `next_obs`
        and `reward`, every other field copied. With the three functions left None this runs on
        whole columns; otherwise row by row with these signatures: `split_func(x) -> (obs,
        desired_goal, achieved_goal)`, `merge_func(obs, goal) -> x`, `goal_reward_func(achieved,
        desired) -> reward`."""
        batch = _as_numpy_batch(episode)
        if len(batch) == 0:
            raise ValueError('HerRewardModel.estimate: the episode is empty')
        if merge_func is None and split_func is None and goal_reward_func is None:
            return [self._relabel_columns(batch, *self._pick(np.array([len(batch)])))
                    for _ in range(self._her_replay_k)]
        split = split_func or _split_halves
        merge = merge_func or _merge
        goal_reward = goal_reward_func or _goal_reached
        return [self._relabel_rows(batch, *self._pick(np.array([len(batch)])), split, merge, goal_reward)
                for _ in range(self._her_replay_k)]

    def estimate_episodes(self, episodes: Sequence[Any]) -> Batch:
        """`estimate` of each episode (default goal layout), all in one Batch: the columns of all
        episodes are joined once and relabelled together, which is what `her_data_enhancer` uses."""
        batches = [_as_numpy_batch(e) for e in episodes]
        lengths = np.array([len(b) for b in batches])
        if len(batches) == 0 or lengths.min() == 0:
            raise ValueError('HerRewardModel.estimate_episodes: needs non-empty episodes')
        joined = Batch.cat(batches)
        return Batch.cat([self._relabel_columns(joined, *self._pick(lengths)) for _ in range(self._her_replay_k)])

    def _pick(self, lengths: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """For episodes of `lengths` laid end to end: the rows to relabel, and for each the row
        whose next_obs gives its new goal (by `her_strategy`)."""
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        if self._sample_per_episode is None:
            episode = np.repeat(np.arange(len(lengths)), lengths)
            rows = np.arange(int(lengths.sum()))
        else:
            episode = np.repeat(np.arange(len(lengths)), self._sample_per_episode)
            rows = starts[episode] + self._below(lengths[episode])
        ends = starts[episode] + lengths[episode]
        if self._her_strategy == 'final':
            goal_rows = ends - 1
        elif self._her_strategy == 'episode':
            goal_rows = starts[episode] + self._below(lengths[episode])
        else:  # 'future': from the row itself to the end of its episode
            goal_rows = rows + self._below(ends - rows)
        return rows, goal_rows

    def _below(self, n: np.ndarray) -> np.ndarray:
        """One uniform integer in [0, n_i) per entry."""
        return (self._rng.random(len(n)) * n).astype(np.int64)

    def _relabel_columns(self, batch: Batch, rows: np.ndarray, goal_steps: np.ndarray) -> Batch:
        obs, next_obs = np.asarray(batch['obs']), np.asarray(batch['next_obs'])
        half = _half(obs)
        new_goal = next_obs[goal_steps, :half]  # the state reached there is the goal achieved
        achieved = next_obs[rows, :half]
        out = batch[rows]
        out['obs'] = np.concatenate([obs[rows, :half], new_goal], axis=1)
        out['next_obs'] = np.concatenate([achieved, new_goal], axis=1)
        reached = np.all(achieved == new_goal, axis=1).astype(np.float32)
        out['reward'] = reached.reshape((len(rows), ) + np.shape(batch['reward'])[1:])
        if self._done_on_goal and 'done' in batch:
            out['done'] = (reached > 0).reshape((len(rows), ) + np.shape(batch['done'])[1:])
        return out

    def _relabel_rows(self, batch: Batch, rows: np.ndarray, goal_steps: np.ndarray, split: Callable,
                      merge: Callable, goal_reward: Callable) -> Batch:
        out = []
        for row, goal_step in zip(rows.tolist(), goal_steps.tolist()):
            transition = batch[row].to_dict()
            # these functions take torch tensors
            obs, _, _ = split(torch.as_tensor(transition['obs']))
            next_obs, _, achieved = split(torch.as_tensor(transition['next_obs']))
            _, _, new_goal = split(torch.as_tensor(batch[goal_step]['next_obs']))
            transition['obs'] = torch.as_tensor(merge(obs, new_goal)).cpu().numpy()
            transition['next_obs'] = torch.as_tensor(merge(next_obs, new_goal)).cpu().numpy()
            reward = np.asarray(torch.as_tensor(goal_reward(achieved, new_goal)).cpu(), dtype=np.float32)
            transition['reward'] = reward.reshape(np.shape(batch['reward'])[1:])
            if self._done_on_goal and 'done' in transition:
                transition['done'] = np.asarray(bool(reward.reshape(-1)[0] > 0)).reshape(np.shape(batch['done'])[1:])
            out.append(transition)
        return Batch.from_rows(out)


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f'HerRewardModel: {name} must be a positive int, got {value!r}')
    return int(value)


def _as_numpy_batch(episode: Any) -> Batch:
    source = _whole_batch_of_rows(episode)
    if source is not None:
        episode = source
    elif isinstance(episode, Sequence) and not isinstance(episode, Batch):
        episode = [e.data if hasattr(e, 'data') and not isinstance(e, Mapping) else e for e in episode]
    batch = as_batch(episode)
    for key in ('obs', 'next_obs', 'reward'):
        if key not in batch:
            raise KeyError(f'HerRewardModel.estimate: transitions need {key!r}; they have {batch.keys()}')
    return batch.to_numpy()


def _whole_batch_of_rows(episode: Any) -> Optional[Batch]:
    """The Batch an episode's row views come from, when the list is all of its rows in order:
    data_pusher stores an episode that way, and reading its columns beats restacking the rows."""
    if not isinstance(episode, list) or not episode or not isinstance(episode[0], Row):
        return None
    source = episode[0]._batch
    if len(source) != len(episode):
        return None
    for i, row in enumerate(episode):
        if not isinstance(row, Row) or row._batch is not source or row._i != i or row._extra:
            return None
    return source


def _half(obs: np.ndarray) -> int:
    if obs.ndim != 2 or obs.shape[1] % 2:
        raise ValueError(f'HerRewardModel: observations must be flat [observation, goal] halves of equal size; '
                         f'got shape {obs.shape[1:]} (pass split_func / merge_func for other layouts)')
    return obs.shape[1] // 2


def _split_halves(x: Any) -> Tuple[Any, Any, Any]:
    obs, desired_goal = np.split(np.asarray(x), 2)
    return obs, desired_goal, obs


def _merge(obs: Any, goal: Any) -> np.ndarray:
    return np.concatenate([np.asarray(obs), np.asarray(goal)])


def _goal_reached(achieved_goal: Any, desired_goal: Any) -> np.ndarray:
    return np.array([float(np.array_equal(np.asarray(achieved_goal), np.asarray(desired_goal)))], dtype=np.float32)
