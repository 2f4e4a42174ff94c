"""The collectors' `state_dict()` (what `RunStateSaver(extra=...)` carries): a run resumed from
it, with the envs restored, emits the same transitions as one never stopped, also for the
episodes running at the checkpoint and for a DI-engine-style policy's recorder."""
import copy
import io

import numpy as np
import torch
from easydict import EasyDict

from ding.framework.context import OnlineRLContext
from ding.framework.middleware import EpisodeCollector, StepCollector

from .conftest import MockActingPolicy, MockEnvManager, drive
from .di_engine_style import DIStyleDQNPolicy


def di_style_policy():
    cfg = EasyDict(seed=0, policy=dict(DIStyleDQNPolicy.config, model=dict(obs_shape=2, action_shape=2),
                                       collect=dict(n_episode=1, n_sample=8, unroll_len=1)))
    return cfg, DIStyleDQNPolicy(cfg.policy).collect_mode


def our_policy():
    cfg = EasyDict(seed=0, policy=dict(collect=dict(n_episode=1, n_sample=8, unroll_len=1)))
    return cfg, MockActingPolicy()


def through_a_file(state):
    f = io.BytesIO()
    torch.save(state, f)
    f.seek(0)
    return torch.load(f, weights_only=False)


def collect_twice_and_resume(collector_cls, make_policy, field):
    """Call 1, checkpoint, call 2; then a fresh collector + the envs as they were at the
    checkpoint, loaded from it, makes call 2 again. Returns (call 2, resumed call 2)."""
    cfg, policy = make_policy()
    env = MockEnvManager([3, 5])  # env 1's episode runs across calls
    collector = collector_cls(cfg, policy, env)
    ctx = OnlineRLContext()
    ctx.collect_kwargs = {'eps': 0.0}
    drive(collector, ctx)
    state, env_then = through_a_file(collector.state_dict()), copy.deepcopy(env)
    drive(collector, ctx)
    resumed = collector_cls(cfg, policy, env_then)
    resumed.load_state_dict(state)
    ctx2 = OnlineRLContext()
    ctx2.collect_kwargs = {'eps': 0.0}
    drive(resumed, ctx2)
    return getattr(ctx, field), getattr(ctx2, field)


def rows_of(episode):
    if isinstance(episode, list):  # DI-engine-style: transition dicts of tensors
        return [(t['obs'].tolist(), int(t['env_data_id'])) for t in episode]
    return [(list(o), int(e)) for o, e in zip(np.asarray(episode['obs']).tolist(), episode['env_id'])]


def test_episode_collector_resumes_running_episodes_whole(fake_task):
    for make_policy in (our_policy, di_style_policy):
        want, got = collect_twice_and_resume(EpisodeCollector, make_policy, 'episodes')
        # call 2 ends env 1's 5-step episode first: 3 of its steps were taken before the checkpoint
        assert len(rows_of(want[0])) == 5 and rows_of(want[0])[0][0] == [1.0, 0.0]
        assert [rows_of(e) for e in got] == [rows_of(e) for e in want], make_policy.__name__


def test_step_collector_resumes_di_engine_episode_ids(fake_task):
    want, got = collect_twice_and_resume(StepCollector, di_style_policy, 'trajectories')
    ids = [int(t['env_data_id']) for t in want]
    # 4 steps of each env a call: env 0's second episode (id 2) began before the checkpoint
    assert ids == [2, 2, 4, 4, 1, 3, 3, 3]
    assert [int(t['env_data_id']) for t in got] == ids
    assert [t['obs'].tolist() for t in got] == [t['obs'].tolist() for t in want]
