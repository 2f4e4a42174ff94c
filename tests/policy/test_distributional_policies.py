"""C51, QR-DQN, IQN, Rainbow and FQF policies: DI-engine's registry names and config defaults, one
update through the shared DQN learner (n-step rewards, priorities, importance weights, target
copies) and a checkpoint round trip."""
import numpy as np
import pytest
import torch

from ding.data.batch import Batch
from ding.policy import C51Policy, DQNPolicy, FQFPolicy, IQNPolicy, QRDQNPolicy, RainbowDQNPolicy
from ding.utils.registry import POLICY_REGISTRY

POLICIES = [C51Policy, QRDQNPolicy, IQNPolicy, RainbowDQNPolicy, FQFPolicy]
MODEL = dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[16, 16])


def _batch(n: int = 6, nstep: int = 3) -> Batch:
    rng = np.random.default_rng(0)
    return Batch(obs=rng.normal(size=(n, 4)).astype(np.float32), action=rng.integers(0, 2, n),
                 reward=np.ones((n, nstep), dtype=np.float32), next_obs=rng.normal(size=(n, 4)).astype(np.float32),
                 done=np.arange(n) % 2 == 0, nstep=np.full(n, nstep), priority_IS=np.ones(n, dtype=np.float32))


def test_registry_names_and_di_engine_defaults():
    assert [POLICY_REGISTRY.lookup(n) for n in ('c51', 'qrdqn', 'iqn', 'rainbow', 'fqf')] == POLICIES
    assert all(issubclass(p, DQNPolicy) for p in POLICIES)
    assert QRDQNPolicy.default_config().learn.kappa == 1.0 and IQNPolicy.default_config().learn.kappa == 1.0
    rainbow = RainbowDQNPolicy.default_config()
    assert (rainbow.priority, rainbow.priority_IS_weight) == (True, True)
    assert (rainbow.nstep, rainbow.discount_factor) == (3, 0.99)
    assert (rainbow.learn.batch_size, rainbow.other.eps.start, rainbow.other.replay_buffer.alpha) == (32, 0.05, 0.6)
    assert C51Policy.default_config().nstep == 1 and C51Policy.default_config().learn.target_update_freq == 100


@pytest.mark.parametrize('cls', POLICIES)
def test_one_update_priorities_and_checkpoint(cls):
    torch.manual_seed(0)
    cfg = dict(model=MODEL, nstep=3, priority=True, priority_IS_weight=True, learn=dict(target_update_freq=1))
    policy = cls(cfg)
    before = {k: v.clone() for k, v in policy._model.state_dict().items()}
    out = policy.learn_mode.forward(_batch())
    assert set(policy.learn_mode.monitor_vars()) <= set(out)
    assert out['priority'].shape == (6,) and (out['priority'] >= 0).all()
    assert np.isfinite(out['total_loss'])
    after = policy._model.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)
    # target_update_freq=1: the target copies the online net after the update
    assert all(torch.equal(after[k], v) for k, v in policy._target_model.state_dict().items())

    actions = policy.collect_mode.forward_batch(np.zeros((3, 4), dtype=np.float32), eps=0.0)['action']
    assert actions.shape == (3,) and set(actions.tolist()) <= {0, 1}
    assert policy.eval_mode.forward_batch(np.zeros((3, 4), dtype=np.float32))['action'].shape == (3,)

    other = cls(dict(model=MODEL))
    other.learn_mode.load_state_dict(policy.learn_mode.state_dict())
    assert all(torch.equal(v, other._model.state_dict()[k]) for k, v in after.items())


def test_1step_batch_with_nstep_config_is_refused():
    policy = C51Policy(dict(model=MODEL, nstep=3))
    batch = _batch()
    batch['reward'] = batch.reward[:, 0]
    with pytest.raises(ValueError, match='C51Policy has nstep=3.*nstep_reward_enhancer'):
        policy.learn_mode.forward(batch)


def test_fqf_trains_fractions_and_quantiles_at_their_own_learning_rates():
    policy = FQFPolicy(dict(model=MODEL, learn=dict(learning_rate_fraction=0.01, learning_rate_quantile=0.002)))
    groups = policy._optimizer.param_groups
    assert [g['lr'] for g in groups] == [0.002, 0.01]
    assert {id(p) for p in groups[1]['params']} == {id(p) for p in policy._model.fraction_parameters()}
    before = [p.clone() for p in policy._model.fraction_parameters()]
    batch = _batch(nstep=1)
    batch['reward'] = batch.reward[:, 0]
    out = policy.learn_mode.forward(batch)
    assert {'quantile_loss', 'fraction_loss', 'entropy'} <= set(out)
    assert any(not torch.equal(b, p) for b, p in zip(before, policy._model.fraction_parameters()))
