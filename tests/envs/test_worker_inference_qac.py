"""`StepCollector` over `env_manager.type='worker_inference'` with the continuous actor-critic
policies: Box actions `[N, act_dim]` float32 from actors living in the env workers, the same
data as the serial manager when the policy is deterministic, a warm-up uniform within the
env's bounds, seeded exploration, and new learner weights picked up by the next collect."""
import multiprocessing

import gymnasium
import numpy as np
import torch
from easydict import EasyDict

from ding.envs import BaseEnvManagerV2, DingEnvWrapper, create_env_manager
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import StepCollector
from ding.policy import DDPGPolicy, DiscreteSACPolicy, SACPolicy, TD3Policy
from ding.utils.dicts import deep_merge
from dizoo.classic_control.pendulum.envs.pendulum_env import PendulumEnv

COLUMNS = ('obs', 'reward', 'next_obs', 'done', 'truncated', 'env_id')


def scaled_pendulums(n=4):
    """Actions in [-1, 1], scaled to the torque by the env."""
    return [lambda: PendulumEnv() for _ in range(n)]


def raw_pendulums(n=4):
    """Pendulum-v1 as gymnasium makes it: torques in [-2, 2]."""
    return [lambda: DingEnvWrapper(gymnasium.make('Pendulum-v1')) for _ in range(n)]


def worker_env(fns):
    return create_env_manager(dict(type='worker_inference', worker_num=2), fns)


def make(policy_cls, n_sample=40, seed=3, **collect):
    space = 'reparameterization' if policy_cls is SACPolicy else 'regression'
    cfg = EasyDict(seed=seed, policy=deep_merge(policy_cls.default_config(), dict(
        model=dict(obs_shape=3, action_shape=1, action_space=space, actor_head_hidden_size=16,
                   critic_head_hidden_size=16),
        collect=dict(n_sample=n_sample, **collect))))
    torch.manual_seed(0)
    return cfg, policy_cls(cfg.policy)


def run(collector, calls):
    ctx = OnlineRLContext()
    out = []
    for _ in range(calls):
        collector(ctx)
        out.append((ctx.trajectories, ctx.env_step))
    return out


def constant_actor(policy, bias):
    """Actor weights giving tanh(bias) everywhere, loaded as a learner checkpoint (new version)."""
    state = policy.learn_mode.state_dict()
    state['model']['actor_out.weight'].zero_()
    state['model']['actor_out.bias'].fill_(bias)
    policy.learn_mode.load_state_dict(state)


def test_noise_free_td3_collection_equals_the_serial_manager():
    results = []
    for env in (BaseEnvManagerV2(scaled_pendulums()), worker_env(scaled_pendulums())):
        cfg, policy = make(TD3Policy, noise_sigma=0.0)
        with env:
            results.append(run(StepCollector(cfg, policy.collect_mode, env), calls=3))
    for (want, want_step), (got, got_step) in zip(*results):
        assert got_step == want_step and len(got) == 40
        assert got.action.dtype == np.float32 and got.action.shape == (40, 1)
        np.testing.assert_allclose(got.action, want.action, rtol=0, atol=1e-6)
        for key in COLUMNS:
            np.testing.assert_allclose(got[key], want[key], rtol=0, atol=1e-5, err_msg=key)
    assert len(set(np.concatenate([r[0].action[:, 0] for r in results[1]]).tolist())) > 100  # acts on each obs
    assert multiprocessing.active_children() == []


def test_sac_warm_up_spans_the_env_box_then_the_seeded_actor_acts_in_its_range():
    data = []
    for _ in range(2):  # the same seed twice: the same data
        cfg, policy = make(SACPolicy, n_sample=16)
        with worker_env(raw_pendulums()) as env:
            data.append(run(StepCollector(cfg, policy.collect_mode, env, random_collect_size=400), calls=2))
    (warm, warm_step), (after, after_step) = data[0]
    assert (warm_step, after_step) == (400, 416) and warm.action.shape == (400, 1)
    assert warm.action.dtype == after.action.dtype == np.float32
    assert -2.0 <= warm.action.min() < -1.8 and 1.8 < warm.action.max() <= 2.0  # uniform over [-2, 2]
    assert np.abs(after.action).max() < 1.0 and len(np.unique(after.action)) == 16  # tanh-Gaussian samples
    for (first, _), (again, _) in zip(*data):
        for key in COLUMNS + ('action', ):
            np.testing.assert_array_equal(first[key], again[key], err_msg=key)
    assert multiprocessing.active_children() == []


def test_the_next_collect_uses_the_learners_new_actor_weights():
    cfg, policy = make(DDPGPolicy, n_sample=12, noise_sigma=0.0)
    constant_actor(policy, 0.5)
    with worker_env(scaled_pendulums()) as env:
        collector = StepCollector(cfg, policy.collect_mode, env)
        (first, _), = run(collector, calls=1)
        constant_actor(policy, -1.0)
        (second, _), = run(collector, calls=1)
        assert env.weights_version == 4  # bound, then published once for the new weights
    np.testing.assert_allclose(first.action, np.full((12, 1), np.tanh(0.5)), rtol=0, atol=1e-6)
    np.testing.assert_allclose(second.action, np.full((12, 1), np.tanh(-1.0)), rtol=0, atol=1e-6)
    assert multiprocessing.active_children() == []


def test_discrete_sac_collects_sampled_int64_actions_after_a_uniform_warm_up():
    policy_cfg = deep_merge(DiscreteSACPolicy.default_config(), dict(
        model=dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[16]), collect=dict(n_sample=8)))
    cfg = EasyDict(seed=3, policy=policy_cfg)
    torch.manual_seed(0)
    policy = DiscreteSACPolicy(cfg.policy)
    cartpoles = [lambda: DingEnvWrapper(gymnasium.make('CartPole-v1')) for _ in range(4)]
    with worker_env(cartpoles) as env:
        (warm, warm_step), (after, after_step) = run(StepCollector(cfg, policy.collect_mode, env,
                                                                   random_collect_size=200), calls=2)
    assert (warm_step, after_step) == (200, 208)
    assert warm.action.dtype == after.action.dtype == np.int64 and after.action.shape == (8, )
    assert 70 < int(warm.action.sum()) < 130  # ~100 of 200 uniform draws pick action 1
    assert set(after.action.tolist()) <= {0, 1}
