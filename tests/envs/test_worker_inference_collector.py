"""`StepCollector` over `env_manager.type='worker_inference'`: the policy's actor lives in the
env workers, weights follow the learner through shared memory, and the data equals the
serial manager's for the same seed and a greedy policy."""
import multiprocessing

import gymnasium
import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.envs import BaseEnvManagerV2, DingEnvWrapper, create_env_manager
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import StepCollector
from ding.policy import DQNPolicy, PPOPolicy
from ding.policy.base_policy import Policy
from ding.utils.dicts import deep_merge

from .mock_envs import TinyQ

COLUMNS = ('obs', 'action', 'reward', 'next_obs', 'done', 'truncated', 'env_id')


class NoActorPolicy(Policy):
    """A policy that acts only in the main process (defines no worker actor)."""

    def default_model(self):
        return TinyQ()


def cartpole_fns(n=4):
    return [lambda: DingEnvWrapper(gymnasium.make('CartPole-v1')) for _ in range(n)]


def worker_env(n=4, **cfg):
    return create_env_manager(dict(type='worker_inference', worker_num=2, **cfg), cartpole_fns(n))


def make_cfg(n_sample=40, seed=3):
    policy = deep_merge(DQNPolicy.default_config(), dict(collect=dict(n_sample=n_sample)))
    return EasyDict(seed=seed, policy=policy)


def dqn_policy(cfg):
    torch.manual_seed(0)
    return DQNPolicy(cfg.policy, model=TinyQ())


def set_q(policy, weight, bias):
    """New learner weights for the Q-net, loaded as a learner checkpoint (bumps the version)."""
    state = policy.learn_mode.state_dict()
    state['model']['fc.weight'].copy_(torch.tensor(weight, dtype=torch.float32))
    state['model']['fc.bias'].copy_(torch.tensor(bias, dtype=torch.float32))
    policy.learn_mode.load_state_dict(state)


def always(policy, action):
    """The Q-net picks `action` everywhere."""
    set_q(policy, [[0.0] * 4] * 2, [-1.0, 1.0] if action == 1 else [1.0, -1.0])


def pushes_the_pole_over(policy):
    """Greedy action 1 (push right) exactly when the pole leans left: episodes end fast."""
    set_q(policy, [[0.0] * 4, [0.0, 0.0, -10.0, 0.0]], [0.0, 0.0])


def run(collector, calls, eps=0.0):
    ctx = OnlineRLContext()
    ctx.collect_kwargs = {'eps': eps}
    out = []
    for _ in range(calls):
        collector(ctx)
        out.append((ctx.trajectories, list(ctx.trajectory_end_idx), ctx.env_step, ctx.env_episode))
    return out


def test_greedy_collection_equals_the_serial_manager():
    cfg = make_cfg(n_sample=40)  # 10 steps of each of 4 envs per call
    results = []
    for env in (BaseEnvManagerV2(cartpole_fns()), worker_env()):
        policy = dqn_policy(cfg)
        pushes_the_pole_over(policy)
        with env:
            results.append(run(StepCollector(cfg, policy.collect_mode, env), calls=4))
    episodes = 0
    for (want, want_end, want_step, want_ep), (got, got_end, got_step, got_ep) in zip(*results):
        assert len(got) == 40 and got_end == want_end == [9, 19, 29, 39]
        assert (got_step, got_ep) == (want_step, want_ep)
        for key in COLUMNS:
            assert np.array_equal(got[key], want[key]), key
        episodes = got_ep
    assert results[1][-1][2] == 160 and episodes > 4  # episodes did end (and auto-reset) in the workers
    assert sorted(set(np.concatenate([r[0].action for r in results[1]]).tolist())) == [0, 1]
    assert multiprocessing.active_children() == []


def test_the_next_collect_uses_the_learners_new_weights():
    cfg = make_cfg(n_sample=12)
    policy = dqn_policy(cfg)
    always(policy, 0)
    with worker_env() as env:
        collector = StepCollector(cfg, policy.collect_mode, env)
        first, second = run(collector, calls=2)
        assert first[0].action.tolist() == [0] * 12 and second[0].action.tolist() == [0] * 12
        assert env.weights_version == 2  # bound once, not published again while the weights stood still
        always(policy, 1)
        (third, *_), = run(collector, calls=1)
        assert third.action.tolist() == [1] * 12 and env.weights_version == 4


def test_random_warm_up_acts_uniformly_then_the_policy_acts():
    cfg = make_cfg(n_sample=8)
    policy = dqn_policy(cfg)
    always(policy, 1)
    with worker_env() as env:
        collector = StepCollector(cfg, policy.collect_mode, env, random_collect_size=42)
        warm, after = run(collector, calls=2)
    assert warm[2] == 44 and len(warm[0]) == 44 and warm[1] == [10, 21, 32, 43]  # ceil(42 / 4) = 11 steps
    assert sorted(set(warm[0].action.tolist())) == [0, 1]  # uniform, whatever the Q-net prefers
    assert after[2] == 52 and after[0].action.tolist() == [1] * 8


def test_a_policy_that_cannot_act_in_workers_is_refused_at_construction():
    cfg = make_cfg()
    with worker_env() as env:
        with pytest.raises(ValueError, match="NoActorPolicy cannot act inside env workers.*'worker_inference'"):
            StepCollector(cfg, NoActorPolicy(cfg.policy).collect_mode, env)
        ppo = PPOPolicy(dict(model=dict(obs_shape=4, action_shape=2)))
        with pytest.raises(ValueError, match=r"PPOPolicy stores \['value', 'logp'\].*'worker_inference'"):
            StepCollector(cfg, ppo.collect_mode, env)
    assert multiprocessing.active_children() == []


def test_unknown_manager_key_is_refused_with_a_hint():
    with pytest.raises(KeyError, match="unknown config key 'worker_nun'; did you mean 'worker_num'"):
        create_env_manager(dict(type='worker_inference', worker_nun=2), cartpole_fns(2))
    assert multiprocessing.active_children() == []


def test_close_leaves_no_child_process_and_a_relaunch_collects_again():
    cfg = make_cfg(n_sample=8)
    policy = dqn_policy(cfg)
    always(policy, 1)
    env = worker_env()
    collector = StepCollector(cfg, policy.collect_mode, env)
    run(collector, calls=1)
    pids = env.worker_pids
    assert len(pids) == 2 and sorted(p.pid for p in multiprocessing.active_children()) == sorted(pids)
    env.close()
    assert multiprocessing.active_children() == [] and env.closed
    (batch, *_), = run(collector, calls=1)  # the collector relaunches; the actor stays bound
    assert batch.action.tolist() == [1] * 8
    env.close()
    assert multiprocessing.active_children() == []
