import numpy as np
import pytest

import ding.policy
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import EpisodeCollector, StepCollector, TransitionList, inferencer, rolloutor

from .conftest import MockActingPolicy, MockEnvManager, make_cfg


def test_step_collector_n_sample_16_over_8_envs():
    env = MockEnvManager(lengths=[1, 2, 3, 4, 5, 6, 7, 8])
    policy = MockActingPolicy(transition_keys=('value', ))
    collector = StepCollector(make_cfg(), policy, env)
    ctx = OnlineRLContext(collect_kwargs={'eps': 0.5})
    collector(ctx)
    traj = ctx.trajectories
    assert len(traj) == 16
    assert ctx.trajectory_end_idx == [1, 3, 5, 7, 9, 11, 13, 15]
    assert ctx.env_step == 16
    assert ctx.env_episode == 3  # env 0 ends twice, env 1 once
    assert env.seeds == [(0, True)] and not env.closed
    assert traj.env_id.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]
    assert traj.obs.dtype == np.float32 and traj.obs.shape == (16, 2)
    assert traj.obs[2:4].tolist() == [[1, 0], [1, 1]]
    assert traj.next_obs[2:4].tolist() == [[1, 1], [1, 2]]  # terminal obs, not the reset one
    assert traj.done.tolist()[:6] == [True, True, False, True, False, False]
    assert not traj.truncated.any()
    assert traj.reward[:4].tolist() == [1, 1, 2, 2]
    assert traj.action.tolist()[:4] == [0, 0, 0, 1]
    assert traj.value[2:4].tolist() == [0, 10]
    assert traj[3].next_obs.tolist() == [1, 2]  # attribute access on a transition
    assert policy.calls == [{'eps': 0.5}, {'eps': 0.5}]
    assert policy.reset_calls == [[0], [0, 1]]


def test_step_collector_rounds_up_to_whole_env_steps_and_continues_episodes():
    env = MockEnvManager(lengths=[3, 3, 3, 3, 3, 3, 3, 3])
    collector = StepCollector(make_cfg(policy__collect__n_sample=10), MockActingPolicy(), env)
    ctx = OnlineRLContext()
    collector(ctx)
    assert len(ctx.trajectories) == 16 and ctx.env_step == 16 and ctx.env_episode == 0
    collector(ctx)
    assert ctx.env_step == 32 and ctx.env_episode == 8
    assert ctx.trajectories.obs[:2, 1].tolist() == [2, 0]  # env 0 continued its episode
    assert 'value' not in ctx.trajectories


def test_step_collector_truncation_is_not_done():
    env = MockEnvManager(lengths=[2, 2], truncate=True)
    collector = StepCollector(make_cfg(policy__collect__n_sample=4), MockActingPolicy(), env)
    ctx = OnlineRLContext()
    collector(ctx)
    assert ctx.trajectories.truncated.tolist() == [False, True, False, True]
    assert not ctx.trajectories.done.any() and ctx.env_episode == 2


def test_step_collector_random_warmup_then_policy(monkeypatch):
    random_policy = MockActingPolicy()
    seen = []

    def fake_get_random_policy(cfg, policy, env):
        seen.append(cfg.collect.n_sample)
        return random_policy

    monkeypatch.setattr(ding.policy, 'get_random_policy', fake_get_random_policy, raising=False)
    env = MockEnvManager(lengths=[100] * 4)
    policy = MockActingPolicy()
    collector = StepCollector(make_cfg(policy__collect__n_sample=4), policy, env, random_collect_size=10)
    ctx = OnlineRLContext()
    collector(ctx)
    assert seen == [4]
    assert len(random_policy.calls) == 3 and len(policy.calls) == 0  # ceil(10 / 4) random steps
    assert ctx.env_step == 12 and len(ctx.trajectories) == 12
    collector(ctx)
    assert len(policy.calls) == 1 and ctx.env_step == 16


def test_step_collector_checks_config():
    cfg = make_cfg()
    del cfg.policy.collect['n_sample']
    with pytest.raises(KeyError, match='StepCollector.*n_sample'):
        StepCollector(cfg, MockActingPolicy(), MockEnvManager([1]))


def test_episode_collector_returns_complete_episodes():
    env = MockEnvManager(lengths=[2, 3])
    collector = EpisodeCollector(make_cfg(policy__collect__n_episode=3), MockActingPolicy(), env)
    ctx = OnlineRLContext()
    collector(ctx)
    # step 2: env 0 ends; step 3: env 1 ends; step 4: env 0 ends again
    assert [len(e) for e in ctx.episodes] == [2, 3, 2]
    assert ctx.env_step == 8 and ctx.env_episode == 3
    assert ctx.episodes[1].obs[:, 1].tolist() == [0, 1, 2]
    assert ctx.episodes[1].done.tolist() == [False, False, True]
    assert ctx.episodes[1].reward.tolist() == [2, 2, 2]
    collector(ctx)  # env 1's episode started at step 4 in the first call ends at step 6
    assert [(len(e), int(e.env_id[0])) for e in ctx.episodes] == [(2, 0), (3, 1), (2, 0)]
    assert ctx.env_step == 16 and ctx.env_episode == 6


def test_inferencer_and_rolloutor_build_env_major_batch():
    env = MockEnvManager(lengths=[2, 5])
    policy = MockActingPolicy(transition_keys=('value', ))
    transitions = TransitionList(env.env_num)
    infer, roll = inferencer(0, policy, env), rolloutor(policy, env, transitions)
    ctx = OnlineRLContext()
    for _ in range(3):
        infer(ctx)
        roll(ctx)
    batch, end_idx = transitions.to_trajectories()
    assert end_idx == [2, 5] and ctx.env_step == 6 and ctx.env_episode == 1
    assert batch.obs[:, 1].tolist() == [0, 1, 0, 0, 1, 2]
    assert batch.done.tolist() == [False, True, False, False, False, False]
    assert batch.value.tolist() == [0, 10, 0, 0, 10, 20]
    assert batch.env_id.tolist() == [0, 0, 0, 1, 1, 1]
