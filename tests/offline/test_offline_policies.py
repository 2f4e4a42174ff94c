"""Offline policies: registered under DI-engine's names, learn what their loss says on tiny
datasets, and checkpoint exactly."""
import numpy as np
import pytest
import torch

from ding.data import Batch
from ding.utils.registry import POLICY_REGISTRY

SMALL_QAC = dict(obs_shape=3, action_shape=1, twin_critic=True, actor_head_hidden_size=32,
                 critic_head_hidden_size=32)


def dataset_batch(n=64, action_value=0.5, seed=0):
    rng = np.random.default_rng(seed)
    return Batch(obs=rng.normal(size=(n, 3)).astype(np.float32), action=np.full((n, 1), action_value, np.float32),
                 reward=np.zeros(n, np.float32), next_obs=rng.normal(size=(n, 3)).astype(np.float32),
                 done=np.zeros(n, bool))


def make(name, **cfg):
    torch.manual_seed(0)
    return POLICY_REGISTRY.lookup(name)(cfg)


def test_registered_under_di_engine_names():
    import ding.policy as P
    expected = {'bc': P.BehaviourCloningPolicy, 'cql': P.CQLPolicy, 'discrete_cql': P.DiscreteCQLPolicy,
                'td3_bc': P.TD3BCPolicy, 'iql': P.IQLPolicy, 'bcq': P.BCQPolicy}
    for name, cls in expected.items():
        assert POLICY_REGISTRY.lookup(name) is cls and cls.default_config().type == name


def test_bc_discrete_and_continuous_clone_the_data():
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(128, 4)).astype(np.float32)
    action = (obs[:, 0] > 0).astype(np.int64)
    bc = make('bc', model=dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[32, 32]),
              learn=dict(optimizer='Adam', learning_rate=3e-2, weight_decay=None))
    for _ in range(30):
        bc.learn_mode.forward(Batch(obs=obs, action=action))
    assert (bc.eval_mode.forward_batch(obs)['action'] == action).mean() > 0.9
    target = np.tanh(obs[:, :1] - obs[:, 1:2]).astype(np.float32)
    cbc = make('bc', continuous=True, loss_type='mse_loss', model=dict(obs_shape=4, action_shape=1),
               learn=dict(optimizer='Adam', learning_rate=2e-2, weight_decay=None))
    first = cbc.learn_mode.forward(Batch(obs=obs, action=target))['total_loss']
    for _ in range(40):
        last = cbc.learn_mode.forward(Batch(obs=obs, action=target))['total_loss']
    assert last < 0.2 * first
    with pytest.raises(ValueError, match="learn.optimizer must be 'SGD' or 'Adam'"):
        make('bc', model=dict(obs_shape=4, action_shape=2), learn=dict(optimizer='RMSprop'))


def test_bc_discrete_collect_is_epsilon_greedy_over_allowed_actions():
    bc = make('bc', model=dict(obs_shape=4, action_shape=3, encoder_hidden_size_list=[16]))
    obs = np.random.default_rng(0).normal(size=(64, 4)).astype(np.float32)
    greedy = bc.eval_mode.forward_batch(obs)['action']
    assert (bc.collect_mode.forward_batch(obs, eps=0.0)['action'] == greedy).all()
    assert (bc.collect_mode.forward_batch(obs, eps=1.0)['action'] != greedy).any()
    mask = np.zeros((64, 3), np.float32)
    mask[:, 1] = 1  # only action 1 allowed: exploration must keep to it
    masked = Batch(observation=obs, action_mask=mask)
    assert (bc.collect_mode.forward_batch(masked, eps=1.0)['action'] == 1).all()


def test_cql_prefers_the_dataset_action_and_resumes_exactly():
    policy = make('cql', model=dict(SMALL_QAC), learn=dict(min_q_weight=5.0, num_actions=4, learning_rate_q=3e-3))
    data = dataset_batch()
    for _ in range(30):
        out = policy.learn_mode.forward(data)
    assert {'cql_penalty', 'td_loss', 'alpha'} <= set(out)
    obs = torch.as_tensor(data.obs)
    with torch.no_grad():
        q_data = policy._model.q_all(obs, torch.full((64, 1), 0.5)).mean()
        q_other = policy._model.q_all(obs, torch.full((64, 1), -0.9)).mean()
    assert q_data > q_other + 0.3  # pushed down off the data, up on it
    twin = make('cql', model=dict(SMALL_QAC), learn=dict(min_q_weight=5.0, num_actions=4, learning_rate_q=3e-3))
    twin.learn_mode.load_state_dict(policy.learn_mode.state_dict())
    torch.manual_seed(7)
    a = policy.learn_mode.forward(data)
    torch.manual_seed(7)
    b = twin.learn_mode.forward(data)
    assert a == b


def test_cql_lagrange_multiplier_grows_while_the_penalty_exceeds_the_threshold():
    policy = make('cql', model=dict(SMALL_QAC), learn=dict(with_lagrange=True, lagrange_thresh=0.01,
                                                           num_actions=4, learning_rate_q=1e-2))
    for _ in range(5):
        out = policy.learn_mode.forward(dataset_batch())
    assert out['alpha_prime'] > 1.0


@pytest.mark.parametrize('name', ['td3_bc', 'iql', 'bcq'])
def test_actor_regresses_onto_dataset_actions(name):
    model = dict(SMALL_QAC, action_space='regression') if name == 'td3_bc' else dict(SMALL_QAC)
    if name == 'bcq':  # the VAE learns the data's action; the actor may move it by phi at most
        model = dict(obs_shape=3, action_shape=1, actor_head_hidden_size=[32], critic_head_hidden_size=[32],
                     vae_hidden_dims=[32])
    lr = {'learning_rate_actor': 1e-2} if name == 'td3_bc' else {'learning_rate_policy': 1e-2}
    if name == 'bcq':
        lr['learning_rate_vae'] = 1e-2
    # TD3+BC with a small alpha: the regression term leads (its Q term is scaled by alpha / mean|Q|)
    policy = make(name, model=model, learn=dict(actor_update_freq=1, alpha=0.1, **lr) if name == 'td3_bc' else lr)
    data = dataset_batch(action_value=0.6)
    data.reward = np.ones(len(data), np.float32)
    for _ in range(50):
        policy.learn_mode.forward(data)
    acted = policy.eval_mode.forward_batch(data.obs)['action']
    assert np.abs(acted - 0.6).mean() < 0.15


def test_discrete_cql_raises_q_of_the_dataset_action():
    policy = make('discrete_cql', model=dict(obs_shape=4, action_shape=3, encoder_hidden_size_list=[32, 32],
                                             num_quantiles=8), learn=dict(min_q_weight=4.0))
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(64, 4)).astype(np.float32)
    data = Batch(obs=obs, action=np.full(64, 2), reward=np.zeros(64, np.float32), next_obs=obs,
                 done=np.zeros(64, bool))
    first = policy.learn_mode.forward(data)['cql_penalty']
    for _ in range(30):
        out = policy.learn_mode.forward(data)
    assert out['cql_penalty'] < 0.7 * first
    assert (policy.eval_mode.forward_batch(obs)['action'] == 2).all()
