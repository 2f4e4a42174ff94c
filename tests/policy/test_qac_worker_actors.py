"""The worker actors of SAC, TD3, DDPG and discrete SAC act exactly as the policies'
collect forwards: with the same weights and the same random draws, the same actions."""
import cloudpickle
import numpy as np
import pytest
import torch
from gymnasium import spaces

from ding.policy import DDPGPolicy, DiscreteSACPolicy, SACPolicy, TD3Policy
from ding.policy.qac_worker_actors import NoisyDeterministicActor, TanhGaussianActor

OBS = np.random.default_rng(1).standard_normal((64, 3)).astype(np.float32)


def continuous(policy_cls, **collect):
    torch.manual_seed(0)
    space = 'reparameterization' if policy_cls is SACPolicy else 'regression'
    return policy_cls(dict(model=dict(obs_shape=3, action_shape=2, action_space=space, actor_head_hidden_size=16,
                                      critic_head_hidden_size=16), collect=collect))


def discrete_sac():
    torch.manual_seed(0)
    return DiscreteSACPolicy(dict(model=dict(obs_shape=3, action_shape=4, encoder_hidden_size_list=[16])))


def worker_actor(policy):
    """The actor as a worker builds it: from the pickled factory."""
    return cloudpickle.loads(cloudpickle.dumps(policy.collect_mode.worker_actor()))()


def same_draws(policy, actor, seed=123):
    """Policy collect forward and actor with their generators in the same state."""
    torch.manual_seed(seed)
    want = policy.collect_mode.forward_batch(OBS)['action']
    actor.generator.manual_seed(seed)
    return want, actor(OBS)


@pytest.mark.parametrize('policy_cls', [DDPGPolicy, TD3Policy])
def test_deterministic_actors_without_noise_give_the_eval_action(policy_cls):
    policy = continuous(policy_cls, noise_sigma=0.0)
    actor = worker_actor(policy)
    assert type(actor) is NoisyDeterministicActor and actor.noise_sigma == 0.0
    action = actor(OBS)
    assert action.dtype == np.float32 and action.shape == (64, 2)
    np.testing.assert_array_equal(action, policy.eval_mode.forward_batch(OBS)['action'])
    np.testing.assert_array_equal(action, policy.collect_mode.forward_batch(OBS)['action'])


@pytest.mark.parametrize('policy_cls', [DDPGPolicy, TD3Policy])
def test_deterministic_actors_add_the_configured_clipped_noise(policy_cls):
    policy = continuous(policy_cls, noise_sigma=0.5)
    actor = worker_actor(policy)
    assert actor.noise_sigma == 0.5
    want, got = same_draws(policy, actor)
    np.testing.assert_array_equal(got, want)
    mean = policy.eval_mode.forward_batch(OBS)['action']
    assert not np.array_equal(got, mean) and np.abs(got).max() <= 1.0
    assert np.isclose(np.abs(got).max(), 1.0)  # sigma 0.5 reaches the bounds somewhere: clipped there


def test_sac_actor_samples_the_tanh_gaussian_of_the_collect_forward():
    policy = continuous(SACPolicy)
    actor = worker_actor(policy)
    assert type(actor) is TanhGaussianActor
    want, got = same_draws(policy, actor)
    assert got.dtype == np.float32 and got.shape == (64, 2)
    np.testing.assert_array_equal(got, want)
    assert np.abs(got).max() < 1.0
    assert not np.array_equal(got, policy.eval_mode.forward_batch(OBS)['action'])  # a sample, not tanh(mu)


def test_discrete_sac_actor_samples_the_collect_forwards_categorical():
    policy = discrete_sac()
    actor = worker_actor(policy)
    want, got = same_draws(policy, actor)
    assert got.dtype == np.int64 and got.shape == (64, )
    assert got.tolist() == want.tolist() and len(set(got.tolist())) > 1


def test_discrete_sac_warm_up_is_uniform_over_the_actions():
    actor = worker_actor(discrete_sac())
    actor.seed(3)
    warm = actor(np.zeros((400, 3), np.float32), warmup=True)
    assert np.bincount(warm, minlength=4).min() > 60  # ~100 each


@pytest.mark.parametrize('policy_cls', [SACPolicy, TD3Policy, DDPGPolicy])
def test_warm_up_is_uniform_within_the_env_box_and_seeded(policy_cls):
    factory = continuous(policy_cls).collect_mode.worker_actor()
    first, second, other, unbound = factory(), factory(), factory(), factory()
    for actor, seed in ((first, 5), (second, 5), (other, 6)):
        actor.seed(seed)
        actor.set_action_space(spaces.Box(np.array([-2, 0], np.float32), np.array([2, 0.5], np.float32)))
    obs = np.zeros((2000, 3), np.float32)
    warm = first(obs, warmup=True)
    assert warm.dtype == np.float32 and warm.shape == (2000, 2)
    np.testing.assert_array_equal(warm, second(obs, warmup=True))
    assert not np.array_equal(warm, other(obs, warmup=True))
    for dim, (low, high) in enumerate([(-2.0, 2.0), (0.0, 0.5)]):
        column = warm[:, dim]
        assert low <= column.min() < low + 0.05 * (high - low) and high - 0.05 * (high - low) < column.max() <= high
        assert np.histogram(column, bins=4, range=(low, high))[0].min() > 400  # ~500 per quarter
    no_space = unbound(obs, warmup=True)  # no space given: the actors' own range [-1, 1]
    assert -1.0 <= no_space.min() < -0.95 and 0.95 < no_space.max() <= 1.0


def test_a_mismatched_or_unbounded_action_space_is_refused():
    actor = worker_actor(continuous(SACPolicy))
    with pytest.raises(ValueError, match=r'does not match the model.s \(2,\) actions'):
        actor.set_action_space(spaces.Box(-1.0, 1.0, (3, ), np.float32))
    with pytest.raises(ValueError, match='warm-up needs a bounded action space'):
        actor.set_action_space(spaces.Box(-np.inf, np.inf, (2, ), np.float32))


def test_seeded_actors_repeat_and_differ_between_seeds():
    factory = continuous(SACPolicy).collect_mode.worker_actor()
    a, b, c = factory(), factory(), factory()
    a.seed(0), b.seed(0), c.seed(1)
    np.testing.assert_array_equal(a(OBS), b(OBS))
    assert not np.array_equal(a(OBS), c(OBS))


@pytest.mark.parametrize('policy_cls, bias', [
    (TD3Policy, [0.5, -1.0]),  # action tanh(bias)
    (SACPolicy, [0.5, -1.0, -30.0, -30.0]),  # mu = [0.5, -1], log sigma clamped to -20: tanh(mu) in float32
])
def test_actors_follow_loaded_weights(policy_cls, bias):
    policy = continuous(policy_cls, noise_sigma=0.0)
    actor = worker_actor(policy)
    want = np.tile(np.tanh(np.array([0.5, -1.0], np.float32)), (64, 1))
    assert not np.allclose(actor(OBS), want, atol=1e-3)
    state = policy.learn_mode.state_dict()
    state['model']['actor_out.weight'].zero_()
    state['model']['actor_out.bias'].copy_(torch.tensor(bias))
    policy.learn_mode.load_state_dict(state)
    _, weights = policy.collect_mode.worker_weights(0)
    actor.load_state_dict(weights)
    np.testing.assert_allclose(actor(OBS), want, rtol=0, atol=1e-6)
