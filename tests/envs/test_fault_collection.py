"""Env faults at the row level, on the serial manager (in-process, so exact and fast): the
row of the step that failed is no transition and is left out by every collector, the
episode's last real row is marked truncated, a dropped partial episode is never emitted,
"in a row" means "with no completed episode between", and the counts reach ctx and
progress.csv."""
import csv
import io
import logging
from functools import partial

import numpy as np
import pytest
from easydict import EasyDict

from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.envs.env_manager.env_faults import EnvFaultError
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import EpisodeCollector, StepCollector, TransitionList, inferencer, rolloutor
from ding.framework.middleware import _common
from ding.framework.middleware.progress import progress_reporter

from .mock_envs import EPISODE_LEN, FAIL_AT, FaultyEpisodes, make_faulty_episodes


class ZeroPolicy:
    """Always action 0; the collect-mode surface the collectors use."""
    transition_keys = ()

    def forward_batch(self, obs, **kwargs):
        return {'action': np.zeros(len(obs), dtype=np.int64)}

    def reset(self, env_ids=None):
        pass


def serial(tmp_path, fault='once', max_retry=3, fn=make_faulty_episodes):
    marker = str(tmp_path / 'failed_once')
    return BaseEnvManagerV2([partial(fn, fault, marker), partial(make_faulty_episodes, None, marker)],
                            dict(max_retry=max_retry))


def cfg(**collect):
    return EasyDict(seed=0, policy=dict(collect=dict(unroll_len=1, **collect)))


def test_step_collector_leaves_the_dropped_row_out_and_cuts_the_episode_before_it(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger='ding.envs.faults')
    env = serial(tmp_path)
    ctx = OnlineRLContext()
    StepCollector(cfg(n_sample=2 * 8), ZeroPolicy(), env)(ctx)  # 8 steps of each env; env 0 fails on its 5th
    b = ctx.trajectories
    # env 0: steps 1-4, step 5 raised (no row), then a fresh episode: 7 rows; env 1: 8 rows
    assert b['env_id'].tolist() == [0] * 7 + [1] * 8
    assert b['obs'][:7, 0].tolist() == [0, 1, 2, 3, 0, 1, 2]
    assert b['truncated'][:7].tolist() == [False, False, False, True, False, False, False]  # cut short at t=4
    assert not b['done'][:7].any() and b['done'][7:].tolist() == [False] * 7 + [True]
    assert ctx.trajectory_end_idx == [6, 14] and ctx.env_step == 15 and ctx.env_episode == 1
    assert (ctx.env_restarts, ctx.dropped_episodes) == (1, 1) == (env.worker_restarts, env.dropped_episodes)
    [record] = caplog.records
    assert record.levelno == logging.WARNING and 'env 0 failed: RuntimeError: env broke on purpose' in \
        record.getMessage()
    env.close()


def test_rolloutor_leaves_the_dropped_row_out_too(tmp_path):
    env = serial(tmp_path)
    policy, transitions, ctx = ZeroPolicy(), TransitionList(2), OnlineRLContext()
    infer, roll = inferencer(0, policy, env), rolloutor(policy, env, transitions)
    for _ in range(8):
        infer(ctx)
        roll(ctx)
    batch, end_idx = transitions.to_trajectories()
    assert len(transitions) == len(batch) == ctx.env_step == 15 and end_idx == [6, 14]
    assert batch['obs'][:7, 0].tolist() == [0, 1, 2, 3, 0, 1, 2] and batch['truncated'][3]
    assert (ctx.env_restarts, ctx.dropped_episodes, ctx.env_episode) == (1, 1, 1)
    env.close()


def test_episode_collector_never_emits_the_dropped_partial_episode(tmp_path):
    env = serial(tmp_path)
    ctx = OnlineRLContext()
    EpisodeCollector(cfg(n_episode=3), ZeroPolicy(), env)(ctx)
    for episode in ctx.episodes:  # whole episodes only, t = 0 .. EPISODE_LEN - 1
        assert episode['obs'][:, 0].tolist() == list(range(EPISODE_LEN)) and episode['done'][-1]
    assert sorted(e['env_id'][0] for e in ctx.episodes) == [0, 1, 1]
    assert (ctx.env_restarts, ctx.dropped_episodes) == (1, 1)
    env.close()


class FailsEveryOtherEpisode(FaultyEpisodes):
    """Raises on step FAIL_AT of its 1st, 3rd, 5th, ... episode, counted over all copies
    (the serial manager rebuilds it in this process)."""
    episodes = 0

    def reset(self, seed=None, options=None):
        FailsEveryOtherEpisode.episodes += 1
        return super().reset(seed=seed, options=options)

    def _fails_now(self):
        return FailsEveryOtherEpisode.episodes % 2 == 1


def every_other(fault, marker):
    return DingEnvWrapper(FailsEveryOtherEpisode(fault, marker))


def test_failures_with_completed_episodes_between_are_not_in_a_row(tmp_path):
    FailsEveryOtherEpisode.episodes = 0
    env = serial(tmp_path, max_retry=1, fn=every_other)
    env.launch()
    for _ in range(4 * (FAIL_AT + EPISODE_LEN)):  # 4 failures, each followed by a completed episode
        env.step_batch(np.zeros(2, dtype=np.int64))
    assert env.worker_restarts == env.dropped_episodes == 4
    env.close()


def test_an_env_failing_every_episode_stops_after_max_retry_restarts(tmp_path):
    env = serial(tmp_path, fault='every', max_retry=1)
    env.launch()
    with pytest.raises(EnvFaultError, match=r'env 0 failed 2 times in a row .*max_retry=1.*env broke on purpose'):
        for _ in range(10 * FAIL_AT):
            env.step_batch(np.zeros(2, dtype=np.int64))
    assert env.worker_restarts == 1
    env.close()


def test_the_counts_reach_progress_csv(tmp_path, monkeypatch):
    monkeypatch.setattr(_common, 'current_task', lambda: EasyDict(finish=True))
    reporter = progress_reporter(str(tmp_path), stream=io.StringIO(), show=False)
    ctx = OnlineRLContext()
    gen = reporter(ctx)
    next(gen)
    ctx.env_step, ctx.env_restarts, ctx.dropped_episodes = 16, 2, 3
    with pytest.raises(StopIteration):
        next(gen)
    [row] = list(csv.DictReader(io.StringIO((tmp_path / 'progress.csv').read_text())))
    assert (row['env_restarts'], row['dropped_episodes']) == ('2', '3')


@pytest.mark.parametrize('wait_s', [0.0, 0.25])
def test_retry_waiting_time_pauses_before_each_restart(tmp_path, monkeypatch, wait_s):
    from ding.envs.env_manager import env_faults
    pauses = []
    monkeypatch.setattr(env_faults.time, 'sleep', pauses.append)
    marker = str(tmp_path / 'failed_once')
    env = BaseEnvManagerV2([partial(make_faulty_episodes, 'once', marker)], dict(retry_waiting_time=wait_s))
    env.seed(0)
    env.launch()
    for _ in range(8):
        env.step_batch(np.zeros(1, dtype=np.int64))
    assert env.worker_restarts == 1 and pauses == ([wait_s] if wait_s else [])
    env.close()


def test_an_unknown_retry_type_is_refused():
    with pytest.raises(ValueError, match="retry_type must be 'reset' or 'renew'"):
        BaseEnvManagerV2([lambda: make_faulty_episodes(None, '')], dict(retry_type='restart'))
