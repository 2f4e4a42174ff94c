"""A2CPolicy: one pass over the batch, improves positive-advantage actions."""
import numpy as np
import torch

from ding.data.batch import Batch
from ding.policy import A2CPolicy

MODEL = dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[16], actor_head_hidden_size=16,
             critic_head_hidden_size=16)


def train_batch(n):
    """Obs-independent task: action 0 has advantage +1, action 1 has -1."""
    rng = np.random.default_rng(0)
    action = rng.integers(0, 2, n)
    adv = np.where(action == 0, 1.0, -1.0).astype(np.float32)
    return Batch(obs=rng.normal(size=(n, 4)).astype(np.float32), action=action, adv=adv, **{'return': adv.copy()})


def test_a2c_one_pass_over_minibatches_and_improves():
    torch.manual_seed(0)
    policy = A2CPolicy(dict(model=MODEL, learn=dict(batch_size=16, learning_rate=1e-2)))
    assert policy.collect_mode.transition_keys == ('value', 'logp')
    data = train_batch(64)
    obs = torch.from_numpy(data.obs)
    before = torch.softmax(policy._model(obs, mode='compute_actor')['logit'], -1)[:, 0].mean().item()
    out = policy.learn_mode.forward(data)
    assert len(out) == 4 and {'total_loss', 'value_loss', 'entropy'} <= set(out[0])
    after = torch.softmax(policy._model(obs, mode='compute_actor')['logit'], -1)[:, 0].mean().item()
    assert after > before
    assert np.isfinite([o['total_loss'] for o in out]).all()
