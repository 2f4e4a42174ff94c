"""Turn collected transitions into on-policy training data.

- `gae_estimator`: GAE advantages and returns over `ctx.trajectories` (env-major segments, as
  `StepCollector` writes them), bootstrapping from the critic where an episode was cut short.
- `montecarlo_return_estimator`: discounted returns-to-go over `ctx.episodes`.

Both take `Batch` columns (what our collectors write: the fast path) or treetensor
transitions, which keep their form (advantage_treetensor.py).
"""
from typing import Any, Callable, Optional

import numpy as np

from ding.data.batch import Batch, as_batch
from ding.framework.contract import contract, require_config
from ding.rl_utils.returns import discounted_return, gae
from ding.framework.middleware import _common
from ding.framework.middleware.advantage_treetensor import (is_treetensor_data, policy_config, treetensor_gae,
                                                            treetensor_returns, treetensor_rows)


@_common.gated('learner')
def gae_estimator(cfg: Any, policy: Any, buffer_: Optional[Any] = None) -> Callable:
    """`policy` is a collect mode whose outputs include `value` (PPO, A2C). Adds `adv` and
    `return` (= adv + value) columns; writes `ctx.train_data`, or pushes into `buffer_` when
    one is given (PPOOffPolicy); clears `ctx.trajectories`. Treetensor trajectories take the
    values from `policy.get_attribute('model')`'s critic instead, and a buffer gets one item per
    transition."""
    require_config(cfg, 'gae_estimator', 'policy.collect.discount_factor', 'policy.collect.gae_lambda')
    gamma = float(cfg.policy.collect.discount_factor)
    lambda_ = float(cfg.policy.collect.gae_lambda)

    def _gae_estimator(ctx: Any) -> None:
        if ctx.trajectories is None or len(ctx.trajectories) == 0:
            return
        treetensor = is_treetensor_data(ctx.trajectories)
        if treetensor:
            data = treetensor_gae(ctx.trajectories, ctx.trajectory_end_idx, policy, gamma, lambda_)
        else:
            data = add_gae(as_batch(ctx.trajectories), ctx.trajectory_end_idx, policy, gamma, lambda_)
        if buffer_ is None:
            ctx.train_data = data
        elif treetensor:
            for row in treetensor_rows(data.cpu()):
                buffer_.push(row)
        else:
            buffer_.push(data)
        ctx.trajectories = None

    # on-policy: advantages and bootstrap values must come from the weights that collected
    writes = ('train_data', 'trajectories') if buffer_ is None else ('trajectories', )
    return contract(_gae_estimator, reads=('trajectories', 'trajectory_end_idx'), writes=writes,
                    name='gae_estimator', fresh_weights=buffer_ is None)


def add_gae(batch: Batch, segment_end_idx: Any, policy: Any, gamma: float, lambda_: float) -> Batch:
    """`batch` with `adv` and `return` added (float32 [N], or [N, A] for a multi-agent critic
    whose `value` is per agent: the team reward [N] is then shared by the agents)."""
    if 'value' not in batch:
        raise KeyError(f"gae_estimator needs a 'value' column in the trajectories (has {sorted(batch.keys())}); "
                       f"the collect policy must list 'value' in its transition_keys")
    n = len(batch)
    value_shape = np.shape(batch['value'])
    value = np.asarray(batch['value'], dtype=np.float32).reshape(n, -1)  # [N, A]; A = 1 for one agent
    done = np.asarray(batch['done'], dtype=bool)
    truncated = np.asarray(batch['truncated'], dtype=bool) if 'truncated' in batch else np.zeros(n, bool)
    segment_end = segment_ends(batch, segment_end_idx)
    # V(next_obs): the next row's value inside an episode; the critic's value of the terminal
    # obs where the episode was truncated or the segment stops (one batched critic call)
    next_value = np.roll(value, -1, axis=0)
    bootstrap = np.flatnonzero((truncated | segment_end) & ~done)
    if len(bootstrap):
        out = policy.forward_batch(batch['next_obs'][bootstrap])
        next_value[bootstrap] = np.asarray(out['value'], dtype=np.float32).reshape(len(bootstrap), -1)
    episode_end = done | truncated | segment_end
    reward = np.asarray(batch['reward'], dtype=np.float32).reshape(n, -1)
    adv = _gae_by_segment(reward, value, next_value, done[:, None], episode_end[:, None], segment_end, gamma,
                          lambda_)
    batch['adv'] = adv.reshape(value_shape if len(value_shape) > 1 else (n, ))
    batch['return'] = batch['adv'] + value.reshape(batch['adv'].shape)
    return batch


def segment_ends(batch: Batch, segment_end_idx: Any = None) -> np.ndarray:
    """Bool [N]: True at the last row of each env's segment. From `env_id` changes when the
    batch has that column, else from `trajectory_end_idx`, else the last row only."""
    n = len(batch)
    end = np.zeros(n, dtype=bool)
    if 'env_id' in batch:
        env_id = np.asarray(batch['env_id'])
        end[:-1] = env_id[1:] != env_id[:-1]
    elif segment_end_idx:
        end[np.asarray(segment_end_idx, dtype=np.int64)] = True
    end[-1] = True
    return end


def _gae_by_segment(reward, value, next_value, done, episode_end, segment_end, gamma, lambda_) -> np.ndarray:
    """GAE over env-major rows `[N, k]` (k: 1, or the agents; columns of width 1 broadcast).
    Equal-length segments (what StepCollector writes) are run as one `[T, n_env, k]` array, so
    the backward loop is T steps long instead of N. Returns [N, k]."""
    ends = np.flatnonzero(segment_end)
    lengths = np.diff(np.concatenate([[-1], ends]))
    if len(set(lengths.tolist())) == 1:
        t = int(lengths[0])
        cols = [x.reshape(-1, t, x.shape[-1]).transpose(1, 0, 2) for x in (reward, value, next_value, done,
                                                                           episode_end)]
        return gae(*cols, gamma=gamma, lambda_=lambda_).transpose(1, 0, 2).reshape(len(value), -1)
    return gae(reward, value, next_value, done, episode_end, gamma=gamma, lambda_=lambda_)


@_common.gated('learner')
def montecarlo_return_estimator(policy: Any) -> Callable:
    """`policy`: a PG policy (or its mode, or any object with a `_cfg`);
    `cfg.collect.discount_factor` is the discount. Concatenates `ctx.episodes` into
    `ctx.train_data` with a `return` column (no bootstrap: a truncated episode is treated as
    ended); treetensor episodes give a treetensor."""
    cfg = policy_config(policy)
    if cfg is None:
        raise TypeError(f'montecarlo_return_estimator needs a policy with a config (cfg or _cfg); '
                        f'{type(policy).__name__} has neither')
    require_config(cfg, 'montecarlo_return_estimator', 'collect.discount_factor')
    gamma = float(cfg.collect.discount_factor)

    def _montecarlo_return_estimator(ctx: Any) -> None:
        if not ctx.episodes:
            return
        if is_treetensor_data(ctx.episodes):
            ctx.train_data = treetensor_returns(ctx.episodes, gamma)
            ctx.episodes = None
            return
        batch = episodes_to_batch(ctx.episodes)
        end = np.asarray(batch['done'], dtype=bool).copy()
        if 'truncated' in batch:
            end |= np.asarray(batch['truncated'], dtype=bool)
        end |= batch.pop('_episode_last')
        batch['return'] = discounted_return(np.asarray(batch['reward'], dtype=np.float32), end, gamma)
        ctx.train_data = batch
        ctx.episodes = None

    return contract(_montecarlo_return_estimator, reads=('episodes', ), writes=('train_data', 'episodes'),
                    name='montecarlo_return_estimator', fresh_weights=True)


def episodes_to_batch(episodes: Any) -> Batch:
    """One Batch of all rows, with a temporary `_episode_last` column marking each episode's end.
    Accepts a list of episodes (each a Batch or a list of transitions) or one Batch."""
    parts = [episodes] if isinstance(episodes, Batch) else [as_batch(ep) for ep in episodes if len(ep)]
    batches = []
    for part in parts:
        last = np.zeros(len(part), dtype=bool)
        last[-1] = True
        batches.append(Batch(dict(part.items()), _episode_last=last))
    return Batch.cat(batches)
