"""D4PGPolicy (distributional critic) and PPGOffPolicy (policy / value / auxiliary phases)."""
import numpy as np
import pytest
import torch

from ding.data.batch import Batch
from ding.model import PPG, QACDIST
from ding.policy import D4PGPolicy, PPGOffPolicy
from qac_helpers import bandit_batch, random_batch

D4PG_MODEL = dict(obs_shape=2, action_shape=1, actor_head_hidden_size=32, critic_head_hidden_size=32, v_min=-2.5,
                  v_max=0.5, n_atom=31)


def test_d4pg_keeps_di_engine_keys_and_drops_twin_critic():
    cfg = D4PGPolicy.default_config()
    assert (cfg.model.v_min, cfg.model.v_max, cfg.model.n_atom, cfg.nstep) == (-10, 10, 51, 3)
    assert cfg.priority and cfg.priority_IS_weight and 'twin_critic' not in cfg.model
    assert isinstance(D4PGPolicy(dict(model=D4PG_MODEL, priority_IS_weight=False))._model, QACDIST)


def test_qacdist_shapes_and_template_path():
    from ding.model.template.qac_dist import QACDIST as FromTemplate
    model = FromTemplate(obs_shape=3, action_shape=2, n_atom=11)
    out = model({'obs': torch.randn(5, 3), 'action': torch.rand(5, 2)}, mode='compute_critic')
    assert out['distribution'].shape == (5, 1, 11) and out['q_value'].shape == (5, 1)
    assert torch.allclose(out['distribution'].sum(-1), torch.ones(5, 1))
    assert model(torch.randn(5, 3), mode='compute_actor')['action'].abs().max() <= 1


@pytest.mark.slow  # ~3 s: 300 updates
def test_d4pg_actor_finds_the_bandit_optimum():
    """One-step episodes, reward -(a - 0.5)^2: the critic's mean must peak at 0.5 and the actor follow."""
    torch.manual_seed(0)
    policy = D4PGPolicy(dict(model=D4PG_MODEL, priority=False, priority_IS_weight=False, nstep=1,
                             learn=dict(learning_rate_actor=1e-3, learning_rate_critic=1e-2)))
    for step in range(300):
        out = policy.learn_mode.forward(bandit_batch(64, seed=step))
    action = policy.eval_mode.forward_batch(np.ones((1, 2), np.float32))['action']
    assert abs(float(action[0, 0]) - 0.5) < 0.15, action
    assert set(policy.learn_mode.monitor_vars()) <= set(out) | {'actor_loss'}


def test_d4pg_priorities_and_importance_weights():
    torch.manual_seed(0)
    policy = D4PGPolicy(dict(model=dict(D4PG_MODEL, obs_shape=3), nstep=1))
    batch = random_batch(16, obs_dim=3)
    with pytest.raises(KeyError, match='priority_IS'):
        policy.learn_mode.forward(batch)
    batch['priority_IS'] = np.ones(16, np.float32)
    out = policy.learn_mode.forward(batch)
    assert out['priority'].shape == (16, ) and (out['priority'] > 0).all()


def test_d4pg_rejects_target_smoothing():
    with pytest.raises(ValueError, match='learn.noise'):
        D4PGPolicy(dict(model=D4PG_MODEL, learn=dict(noise=True)))


def _ppg_batch(n: int, seed: int) -> Batch:
    rng = np.random.default_rng(seed)
    value = rng.normal(size=n).astype(np.float32)
    adv = rng.normal(size=n).astype(np.float32)
    return Batch(obs=rng.normal(size=(n, 4)).astype(np.float32), action=rng.integers(0, 2, n),
                 logp=np.full(n, np.log(0.5), np.float32), value=value, adv=adv, **{'return': value + adv})


def _ppg_policy(**learn):
    torch.manual_seed(0)
    model = dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[16, 16], actor_head_hidden_size=16,
                 critic_head_hidden_size=16)
    return PPGOffPolicy(dict(model=model, learn=dict(dict(batch_size=8, aux_freq=3, aux_train_epoch=2), **learn)))


def test_ppg_auxiliary_phase_runs_every_aux_freq_updates():
    policy = _ppg_policy()
    outs = [policy.learn_mode.forward({'policy': _ppg_batch(8, i), 'value': _ppg_batch(8, 10 + i)}) for i in range(3)]
    assert 'auxiliary_loss' not in outs[0] and 'auxiliary_loss' not in outs[1]
    assert {'auxiliary_loss', 'behavioral_cloning_loss', 'aux_value_loss'} <= set(outs[2])
    assert policy._aux_memories == []  # replayed, then dropped


def test_ppg_value_phase_trains_the_value_network_only_and_state_resumes():
    policy = _ppg_policy(aux_freq=100)
    head = [p.detach().clone() for p in policy._model.actor_critic.critic_head.parameters()]
    value_net = [p.detach().clone() for p in policy._model.aux_critic.parameters()]
    policy.learn_mode.forward({'policy': _ppg_batch(8, 0), 'value': _ppg_batch(8, 1)})
    assert all(torch.equal(a, b) for a, b in zip(head, policy._model.actor_critic.critic_head.parameters()))
    assert not all(torch.equal(a, b) for a, b in zip(value_net, policy._model.aux_critic.parameters()))
    state = policy.learn_mode.state_dict()
    other = _ppg_policy(aux_freq=100)
    other.learn_mode.load_state_dict(state)
    assert other._train_iteration == 1 and len(other._aux_memories) == 1


def test_ppg_needs_both_batches_and_collects_the_value_networks_value():
    policy = _ppg_policy()
    with pytest.raises(KeyError, match="'policy': batch, 'value': batch"):
        policy.learn_mode.forward(_ppg_batch(8, 0))
    obs = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    out = policy.collect_mode.forward_batch(obs)
    expected = policy._model.compute_critic(torch.as_tensor(obs))['value'].detach().numpy()
    assert np.allclose(out['value'], expected, atol=1e-6) and set(out) >= {'action', 'logp', 'value'}
    assert isinstance(PPG(4, 2).compute_actor_critic(torch.randn(2, 4))['value'], torch.Tensor)
