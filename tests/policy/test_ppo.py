"""PPOPolicy and PPOOffPolicy: what collect stores, how many updates learn makes, and that an
update moves the policy towards positive-advantage actions."""
import numpy as np
import pytest
import torch

from ding.data.batch import Batch
from ding.policy import PPOOffPolicy, PPOPolicy

MODEL = dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[16], actor_head_hidden_size=16,
             critic_head_hidden_size=16)


def make_policy(cls=PPOPolicy, **learn):
    torch.manual_seed(0)
    return cls(dict(model=MODEL, learn=dict(learn)))


def train_batch(n=64, good_action=0):
    """Obs-independent task: action `good_action` has advantage +1, the other -1."""
    rng = np.random.default_rng(0)
    action = rng.integers(0, 2, n)
    adv = np.where(action == good_action, 1.0, -1.0).astype(np.float32)
    return Batch(obs=rng.normal(size=(n, 4)).astype(np.float32), action=action,
                 logp=np.full(n, np.log(0.5), np.float32), value=np.zeros(n, np.float32), adv=adv,
                 **{'return': adv.copy()})


def test_collect_outputs_and_transition_keys():
    policy = make_policy()
    assert policy.collect_mode.transition_keys == ('value', 'logp')
    obs = np.random.default_rng(1).normal(size=(6, 4)).astype(np.float32)
    out = policy.collect_mode.forward_batch(obs)
    assert set(out) == {'action', 'logp', 'value'}
    assert out['action'].shape == (6, ) and out['value'].shape == (6, )
    logit = policy._model(torch.from_numpy(obs), mode='compute_actor')['logit'].detach()
    expected = torch.log_softmax(logit, -1)[torch.arange(6), torch.from_numpy(out['action'])]
    np.testing.assert_allclose(out['logp'], expected.numpy(), rtol=1e-5)


def test_eval_is_greedy():
    policy = make_policy()
    obs = np.random.default_rng(2).normal(size=(5, 4)).astype(np.float32)
    logit = policy._model(torch.from_numpy(obs), mode='compute_actor')['logit']
    np.testing.assert_array_equal(policy.eval_mode.forward_batch(obs)['action'], logit.argmax(-1).numpy())


def test_learn_makes_epochs_times_minibatches_updates_and_improves():
    policy = make_policy(epoch_per_collect=3, batch_size=16, learning_rate=1e-2)
    data = train_batch(64)
    obs = torch.from_numpy(data.obs)
    before = torch.softmax(policy._model(obs, mode='compute_actor')['logit'], -1)[:, 0].mean().item()
    out = policy.learn_mode.forward(data)
    assert isinstance(out, list) and len(out) == 3 * 4
    assert {'total_loss', 'policy_loss', 'value_loss', 'entropy', 'approx_kl', 'clip_fraction', 'cur_lr',
            'grad_norm'} <= set(out[0])
    after = torch.softmax(policy._model(obs, mode='compute_actor')['logit'], -1)[:, 0].mean().item()
    # the clip stops the ratio pi/pi_old for the good action near 1.2: p(good) ~ 0.5 * 1.2
    assert abs(before - 0.5) < 0.01 and 0.55 < after < 0.65
    # the collector acts on the new weights
    collect_logit = policy._collect_model(obs, mode='compute_actor')['logit']
    torch.testing.assert_close(collect_logit, policy._model(obs, mode='compute_actor')['logit'])


def test_learn_needs_gae_columns():
    data = train_batch(8)
    data.pop('adv')
    with pytest.raises(KeyError, match='gae_estimator'):
        make_policy().learn_mode.forward(data)


def test_continuous_clips_env_action_and_keeps_raw_sample():
    torch.manual_seed(0)
    policy = PPOPolicy(dict(action_space='continuous', action_bound=0.1,
                            model=dict(MODEL, action_space='continuous', action_shape=1, log_std_init=1.0)))
    assert policy.collect_mode.transition_keys == ('value', 'logp', 'raw_action')
    out = policy.collect_mode.forward_batch(np.zeros((200, 4), np.float32))
    assert out['action'].shape == (200, 1)
    assert np.abs(out['action']).max() == pytest.approx(0.1)
    np.testing.assert_array_equal(out['action'], np.clip(out['raw_action'], -0.1, 0.1))
    assert np.abs(out['raw_action']).max() > 0.1
    n = 32
    data = Batch(obs=np.zeros((n, 4), np.float32), action=out['action'][:n], raw_action=out['raw_action'][:n],
                 logp=out['logp'][:n], value=out['value'][:n], adv=np.ones(n, np.float32),
                 **{'return': np.ones(n, np.float32)})
    first = policy.learn_mode.forward(data)[0]
    # first minibatch: current policy == behaviour policy, so nothing is clipped and kl is 0
    assert first['clip_fraction'] == 0.0
    assert first['approx_kl'] == pytest.approx(0.0, abs=1e-6)


def test_ppo_offpolicy_one_update_per_forward():
    policy = make_policy(PPOOffPolicy)
    out = policy.learn_mode.forward(train_batch(16))
    assert isinstance(out, dict) and out['cur_lr'] == pytest.approx(3e-4)
    assert PPOOffPolicy.default_config().on_policy is False


def test_sample_action_follows_the_softmax():
    from ding.policy.onpolicy_base import sample_action
    torch.manual_seed(0)
    logit = torch.log(torch.tensor([[1., 3.]])).expand(4000, 2)
    action, logp = sample_action(logit)
    # P(action 1) = 0.75; 4000 samples: std of the frequency ~0.007
    assert abs(action.float().mean().item() - 0.75) < 0.03
    torch.testing.assert_close(logp, torch.log(torch.where(action == 1, 0.75, 0.25)))


def test_gaussian_sample_and_log_prob_are_torch_distributions_own():
    from torch.distributions import Independent, Normal
    from ding.policy.onpolicy_base import sample_action
    mu, sigma = torch.randn(64, 3), torch.rand(64, 3) + 0.05
    torch.manual_seed(1)
    expected = Independent(Normal(mu, sigma), 1)
    expected_action = expected.sample()
    torch.manual_seed(1)
    action, logp = sample_action({'mu': mu, 'sigma': sigma})
    assert torch.equal(action, expected_action)  # the same draws from the same generator
    torch.testing.assert_close(logp, expected.log_prob(action), rtol=0, atol=0)


def test_linear_lr_decay_reaches_zero_after_lr_decay_iters():
    policy = make_policy(epoch_per_collect=1, batch_size=16, learning_rate=1e-2, lr_decay_iters=4)
    lrs = [o['cur_lr'] for o in policy.learn_mode.forward(train_batch(64))]
    assert lrs == pytest.approx([7.5e-3, 5e-3, 2.5e-3, 0.0])
    restored = make_policy(epoch_per_collect=1, batch_size=16, learning_rate=1e-2, lr_decay_iters=4)
    restored.learn_mode.load_state_dict(policy.learn_mode.state_dict())
    assert restored._optimizer.param_groups[0]['lr'] == 0.0
