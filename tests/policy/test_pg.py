"""PGPolicy: acts from a critic-free PG model and learns from `return`."""
import numpy as np
import torch

from ding.data.batch import Batch
from ding.model import PG
from ding.policy import PGPolicy


def test_pg_policy_collect_and_learn():
    torch.manual_seed(0)
    policy = PGPolicy(dict(model=dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[16]),
                           learn=dict(learning_rate=1e-2)))
    assert isinstance(policy._model, PG)
    assert policy.collect_mode.transition_keys == ('logp', )
    out = policy.collect_mode.forward_batch(np.zeros((3, 4), np.float32))
    assert set(out) == {'action', 'logp'}
    n = 64
    action = np.arange(n) % 2
    obs = torch.zeros(n, 4)
    data = Batch(obs=obs.numpy(), action=action, **{'return': np.where(action == 1, 10.0, 0.0).astype(np.float32)})
    before = torch.softmax(policy._model(obs)['logit'], -1)[0, 1].item()
    for _ in range(5):
        result = policy.learn_mode.forward(data)
    assert isinstance(result, dict) and 'policy_loss' in result
    after = torch.softmax(policy._model(obs)['logit'], -1)[0, 1].item()
    assert after > before + 0.05
