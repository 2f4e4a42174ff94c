"""Non-finite guard: a NaN or infinite observation or reward from an env stops the run.

Why: one NaN reward or observation flows into the replay buffer, then into the loss, and
within a few updates every weight is NaN; the run still exits 0. Every env manager steps
through `BaseEnvManagerV2.step_batch` (the worker-inference sampler checks its rollout with
the same function), so the check lives here once.

`env.manager.nonfinite` (declared in `BaseEnvManagerV2.config`):
- 'raise' (default): `NonFiniteError` naming the env, its step count and the bad value;
- 'warn': a WARNING, and that env's episode is dropped as an env fault drops one (the row is
  flagged `info['dropped_episode']`, never a transition; `dropped_episodes` counts it) and the
  env is reset. An env giving non-finite values more than `max_retry` times with no completed
  episode between still stops the run, so 'warn' cannot spin for ever.
A reset observation that is not finite always raises: there is no step to drop.
Under 'raise', a StepCollector running its own rollout loop checks each collect call's columns
at once instead (`BaseEnvManagerV2.defer_nonfinite_check`, `rollout_finite`, `first_bad_step`):
checking every step cost 1.5% of CartPole collection, checking per call 0.2%.
Dict observations are not checked (their rewards are). The worker-inference sampler's
`collect_rollout` raises in both modes (its episodes run on in the workers).
"""
import logging
import math
import warnings
from typing import Any, List, Sequence, Tuple

import numpy as np

from ding.utils.nonfinite import NonFiniteError  # noqa: F401  (raised here; the CLI catches it)

logger = logging.getLogger('ding.envs.faults')

NONFINITE_MODES = ('raise', 'warn')
# `finite` multiplies a NaN by 0 on purpose (large observations): numpy's warning for it would only repeat our error
warnings.filterwarnings('ignore', message='invalid value encountered in dot', category=RuntimeWarning,
                        module=__name__.replace('.', r'\.'))


def check_mode(who: str, mode: Any) -> str:
    """`mode` if it is one of NONFINITE_MODES, else ValueError naming the key."""
    if mode not in NONFINITE_MODES:
        raise ValueError(f"{who}: env.manager.nonfinite must be one of {list(NONFINITE_MODES)}, got {mode!r}")
    return mode


def finite(obs: Any, reward: np.ndarray) -> bool:
    """True when every reward and (float array) observation is finite: the hot-path check.
    Small arrays are summed as Python floats (doubles: float32 values cannot overflow them, and a
    NaN or inf makes the sum one), ~0.9 us for 8 CartPole envs where `np.isfinite(...).all()` on
    both arrays takes 2.7; larger ones are dotted with zeros (0 * NaN and 0 * inf are NaN), one
    BLAS call that cannot overflow."""
    if not math.isfinite(sum(reward.tolist())):
        return False
    return not (isinstance(obs, np.ndarray) and obs.dtype.kind == 'f') or _finite_array(obs)


def _finite_array(values: np.ndarray) -> bool:
    """Every element of a float array finite; the fast path of `finite` (a reset observation
    is checked this way too: episodes of 20 steps make resets nearly as frequent as steps)."""
    return math.isfinite(sum(values.ravel().tolist()) if values.size <= _SUMMED else float(_zero_dot(values)))


_SUMMED = 64  # elements up to which `tolist` + `sum` beats one BLAS call (~1 us either way at 64)
_ZEROS = {}  # (size, dtype) -> zeros to dot with; a manager steps arrays of one or two shapes


def _zero_dot(values: np.ndarray) -> Any:
    flat = values.reshape(-1)
    zeros = _ZEROS.get((flat.size, flat.dtype))
    if zeros is None:
        zeros = _ZEROS[(flat.size, flat.dtype)] = np.zeros(flat.size, dtype=flat.dtype)
    return np.dot(flat, zeros)


def bad_rows(obs: Any, reward: np.ndarray) -> List[Tuple[int, str]]:
    """[(env row, what is wrong)] for rows with a non-finite reward or observation."""
    rows = []
    obs_bad = (~np.isfinite(obs)).reshape(len(obs), -1).any(axis=1) \
        if isinstance(obs, np.ndarray) and obs.dtype.kind == 'f' else np.zeros(len(reward), dtype=bool)
    reward = np.asarray(reward).reshape(len(reward), -1)
    for i in range(len(reward)):
        parts = []
        if not np.isfinite(reward[i]).all():
            parts.append(f'reward {_show(reward[i])}')
        if obs_bad[i]:
            parts.append(f'observation {_show(obs[i])}')
        if parts:
            rows.append((i, ' and '.join(parts)))
    return rows


def _show(values: np.ndarray) -> str:
    flat = np.asarray(values).reshape(-1)
    return repr(float(flat[0])) if flat.size == 1 else np.array2string(flat[:8], precision=4, separator=', ')


def message(who: str, env_label: str, what: str, step: int, episode_step: int) -> str:
    return (f'{who}: {env_label} returned a non-finite {what} at its env step {step} (step {episode_step} of its '
            f'episode)')


HINT = "; set env.manager.nonfinite='warn' to drop that episode with a warning instead"


def check_reset_obs(who: str, obs: Any, env_ids: Sequence[int], offset: int = 0) -> None:
    """NonFiniteError when a reset observation (rows `env_ids` of `obs`) is not finite."""
    if not isinstance(obs, np.ndarray) or obs.dtype.kind != 'f' or _finite_array(obs):
        return
    for row, env_id in enumerate(env_ids):
        if not np.isfinite(obs[row]).all():
            raise NonFiniteError(f'{who}: env {int(env_id) + offset} returned a non-finite observation '
                                 f'{_show(obs[row])} from reset')


def rollout_finite(obs: Any, next_obs: Any, reward: np.ndarray) -> bool:
    """True when a rollout's `[env, T]` columns hold only finite values (float observations;
    a dict observation's Batch is not checked): the deferred check of `BaseEnvManagerV2.
    defer_nonfinite_check`, a few array passes per collect call instead of one check per step."""
    return _finite_array(reward) and all(not isinstance(o, np.ndarray) or o.dtype.kind != 'f' or _finite_array(o)
                                         for o in (next_obs, obs))


def first_bad_step(obs: Any, next_obs: Any, reward: np.ndarray) -> Tuple[int, int, str, bool]:
    """(env row, step t, what is wrong, from a reset) of the first non-finite value of a
    rollout's `[env, T]` columns in time order (`rollout_finite` was False). At each t the
    observation acted on comes first: when it is bad, the step before returned a finite one (or
    t is 0, whose observation the previous call checked), so it came from a reset."""
    column = lambda o, t: o[:, t] if isinstance(o, np.ndarray) else None  # noqa: E731  (dict obs: unchecked)
    no_reward = np.zeros(len(reward), dtype=np.float32)
    for t in range(reward.shape[1]):
        found = bad_rows(column(obs, t), no_reward)
        if found:
            return found[0][0], t, found[0][1], True
        found = bad_rows(column(next_obs, t), reward[:, t])
        if found:
            return found[0][0], t, found[0][1], False
    raise ValueError('first_bad_step: every value is finite')


def check_rollout(who: str, obs: Any, reward: np.ndarray, steps: int, offset: int = 0) -> None:
    """The worker-inference sampler's rollout (env-major rows, `steps` per env): NonFiniteError
    naming the first env and step of the rollout with a non-finite value. Its envs act in
    their workers, where an episode cannot be dropped after the fact: this raises under 'warn' too."""
    if finite(obs, reward):
        return
    row, what = bad_rows(obs, reward)[0]
    raise NonFiniteError(f'{who}: env {row // steps + offset} returned a non-finite {what} at step {row % steps} of '
                         f'this rollout of {steps} steps')
