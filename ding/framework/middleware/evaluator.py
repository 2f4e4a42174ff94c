"""Greedy evaluation: `interaction_evaluator`, its batched-policy twin and `metric_evaluator`.

`n_episode` is spread evenly over the evaluator envs: env i runs its own share
(`n // env_num`, one more for the first `n % env_num` envs), so short episodes are not
over-represented, as they would be when taking the first `n` episodes to finish."""
import logging
import math
from typing import Any, List

import numpy as np

from ding.utils.protocol_adapters import batched_env, batched_policy
from ding.envs.env_manager.env_faults import dropped_rows, fault_counts
from ding.envs.env_manager.env_frames import EpisodeFrames, replay_picks, replay_video
from ding.framework.contract import contract, require_config
from ding.framework.middleware import _common
from ding.framework.middleware.evaluated_weights import EVALUATED_STATE, held_eval_weights, round_seed
from ding.utils.duck_typing import has_attr, optional_attr

logger = logging.getLogger('ding.evaluator')


def episode_quota(n_episode: int, env_num: int) -> np.ndarray:
    """How many episodes each env runs: [3, 3, 2, 2] for 10 over 4 envs."""
    quota = np.full(env_num, n_episode // env_num, dtype=np.int64)
    quota[:n_episode % env_num] += 1
    return quota


def run_episodes(policy: Any, env: Any, n_episode: int, seed: int, frames: Any = None,
                 outputs: Any = None) -> List[float]:
    """Play `n_episode` greedy episodes from a fresh reset; returns their returns, env by env.

    The envs are reseeded with `seed` first, so the same seed plays the same starting states;
    the evaluator middleware passes a new seed each round (`round_seed(seed, train_iter)`).
    `frames` (an `EpisodeFrames`) records each counted episode's frames from `env.ready_imgs()`,
    `outputs` (another) its per-step policy outputs (`action`, and `logit` when the policy gives one)."""
    env.seed(seed, dynamic_seed=True)
    if env.closed:
        env.launch()
    else:
        env.reset()
    policy.reset()
    remaining = episode_quota(n_episode, env.env_num)
    returns: List[List[float]] = [[] for _ in range(env.env_num)]
    while remaining.any():
        if frames is not None:
            frames.add(env.ready_imgs(), np.flatnonzero(remaining > 0))
        output = policy.forward_batch(env.ready_obs)
        if outputs is not None:
            outputs.add(_per_env_outputs(output, env.env_num), np.flatnonzero(remaining > 0))
        result = env.step_batch(output['action'])
        ended = np.flatnonzero((result.terminated | result.truncated) & (remaining > 0))
        if len(ended):
            policy.reset(ended.tolist())
            # An episode an env restart dropped is replayed, not counted; an env that keeps failing
            # makes the manager raise after `max_retry` failures (env_faults.py), so this ends.
            counted = np.setdiff1d(ended, dropped_rows(result, ended))
            for i in ended:
                for recorder in (frames, outputs):
                    if recorder is not None:
                        recorder.end(i, i in counted)
            for i in counted:
                returns[i].append(float(result.episode_return[i]))
            remaining[counted] -= 1
    return [r for env_returns in returns for r in env_returns]


def _per_env_outputs(output: Any, env_num: int) -> dict:
    """{env_id: {'action': ..., 'logit': ...}} from a batched policy output (numpy rows)."""
    keys = [k for k in ('action', 'logit') if k in output]
    columns = {k: np.asarray(output[k]) for k in keys}
    return {i: {k: columns[k][i] for k in keys} for i in range(env_num)}


def evaluation_due(ctx: Any, eval_freq: int) -> bool:
    """Whether the evaluator evaluates at this step: first, then every `eval_freq` train iterations."""
    return ctx.last_eval_iter == -1 or ctx.train_iter - ctx.last_eval_iter >= eval_freq


def _make_evaluator(seed: int, policy: Any, env: Any, n_episode: int, stop_value: float, eval_freq: int,
                    render: bool = False) -> Any:
    env = batched_env(env)  # a manager written to another protocol is adapted (protocol_adapters.py)
    policy = batched_policy(policy)  # so is a policy mode
    if render and not has_attr(env, 'ready_imgs'):
        raise ValueError(f'interaction_evaluator(render=True) needs frames from the env manager, and '
                         f'{type(env).__name__} has no ready_imgs(); use env manager type base or subprocess')
    best = [-math.inf]

    def _evaluate(ctx: Any) -> None:
        if not evaluation_due(ctx, eval_freq):
            return
        faults_before = fault_counts(env)
        # New start states every round; train_iter names the round (resume restores it).
        with held_eval_weights(policy) as evaluated_weights:
            frames = EpisodeFrames(env.env_num) if render else None
            outputs = EpisodeFrames(env.env_num) if render else None
            returns = run_episodes(policy, env, n_episode, round_seed(seed, ctx.train_iter), frames, outputs)
            mean, std = float(np.mean(returns)), float(np.std(returns))
            ctx.eval_output = {'episode_return': returns}
            if render:  # worst, median and best episode [N, T, C, H, W], as the wandb loggers expect
                ctx.eval_output['replay_video'] = replay_video(frames.episodes(), returns)
                # the same episodes' per-step outputs, for the wandb loggers' action_logger
                ctx.eval_output['output'] = [outputs.episodes()[i] for i in replay_picks(returns)]
            if mean > best[0]:  # CkptSaver writes these weights as eval.pth.tar (it sees the same bests)
                best[0] = mean
                evaluated = evaluated_weights()
                if evaluated is not None:
                    ctx.eval_output[EVALUATED_STATE] = evaluated
        ctx.eval_value = mean
        ctx.last_eval_iter = ctx.train_iter
        ctx.last_eval_value = mean
        _add_fault_counts(ctx, faults_before, fault_counts(env))
        env_step = getattr(ctx, 'env_step', getattr(ctx, 'trained_env_step', 0))  # offline ctx has no env_step
        logger.info('evaluation: env_step=%d train_iter=%d return mean=%.2f std=%.2f (%d episodes)', env_step,
                    ctx.train_iter, mean, std, len(returns))
        if mean >= stop_value and ctx.train_iter > 0:
            reason = f'stop_value {stop_value} reached: eval return {mean:.2f} at env_step={env_step}'
            logger.info('%s', reason)
            _common.current_task().end(reason)

    return contract(
        _evaluate,
        reads=('train_iter', 'last_eval_iter'),
        writes=('eval_value', 'last_eval_iter', 'last_eval_value', 'eval_output', 'eval_env_restarts',
                'eval_dropped_episodes')
    )


def _add_fault_counts(ctx: Any, before: tuple, after: tuple) -> None:
    """Add the evaluator env's new restarts and dropped episodes to the evaluator's counters
    (not the collector's `env_restarts`: a kept field has one writer stage; a ctx class
    without them, e.g. a user's own, is left alone)."""
    if hasattr(ctx, 'eval_env_restarts') and hasattr(ctx, 'eval_dropped_episodes'):
        ctx.eval_env_restarts += after[0] - before[0]
        ctx.eval_dropped_episodes += after[1] - before[1]


@_common.gated('evaluator')
def interaction_evaluator(cfg: Any, policy: Any, env: Any, render: bool = False) -> Any:
    """Every `eval_freq` train iterations, `cfg.env.n_evaluator_episode` greedy episodes;
    sets `task.finish` at `cfg.env.stop_value` once training has started. `render=True` adds
    `eval_output['replay_video']`, the worst, median and best episode as uint8 [N, T, C, H, W]
    (the wandb loggers upload it), from the env manager's `ready_imgs()`, and `eval_output['output']`,
    the same episodes' per-step policy outputs (`{'action', 'logit'}` dicts)."""
    require_config(cfg, 'interaction_evaluator', 'seed', 'env.n_evaluator_episode', 'env.stop_value',
                   'policy.eval.evaluator.eval_freq')
    return _make_evaluator(cfg.seed, policy, env, int(cfg.env.n_evaluator_episode), float(cfg.env.stop_value),
                           int(cfg.policy.eval.evaluator.eval_freq), render)


@_common.gated('evaluator')
def interaction_evaluator_ttorch(seed: int, policy: Any, env: Any, n_evaluator_episode: int = None,
                                 stop_value: float = math.inf, eval_freq: int = 1000, render: bool = False) -> Any:
    """The same evaluator with explicit arguments; `policy` may be a Policy or its eval mode."""
    policy = optional_attr(policy, 'eval_mode', policy)
    n_episode = env.env_num if n_evaluator_episode is None else int(n_evaluator_episode)
    return _make_evaluator(seed, policy, env, n_episode, stop_value, eval_freq, render)


@_common.gated('evaluator')
def metric_evaluator(cfg: Any, policy: Any, dataset: Any, metric: Any) -> Any:
    """Evaluates `policy.forward(inputs)` against labels of `dataset` (iterable of (inputs, label)).

    `metric` provides `eval(output, label)`, `reduce_mean(values)` and `gt(a, b)` (a better than b)."""
    require_config(cfg, 'metric_evaluator', 'env.stop_value', 'policy.eval.evaluator.eval_freq')
    eval_freq, stop_value = int(cfg.policy.eval.evaluator.eval_freq), cfg.env.stop_value

    def _evaluate(ctx: Any) -> None:
        if not evaluation_due(ctx, eval_freq):
            return
        value = metric.reduce_mean([metric.eval(policy.forward(inputs), label) for inputs, label in dataset])
        ctx.eval_value = value
        ctx.last_eval_iter = ctx.train_iter
        ctx.last_eval_value = value
        logger.info('metric evaluation: train_iter=%d value=%s', ctx.train_iter, value)
        if metric.gt(value, stop_value) and ctx.train_iter > 0:
            _common.current_task().end(f'stop_value {stop_value} passed: metric {value} at train_iter={ctx.train_iter}')

    return contract(_evaluate, reads=('train_iter', 'last_eval_iter'),
                    writes=('eval_value', 'last_eval_iter', 'last_eval_value'))
