"""MAQAC's outputs and masks, and SACDiscretePolicy(multi_agent=True) -> MASACPolicy learning per agent."""
import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.data.batch import Batch
from ding.model import MAQAC
from ding.policy import DiscreteSACPolicy, MASACPolicy, SACDiscretePolicy


def obs(b=6, specific=True):
    mask = torch.ones(b, 3, 5)
    mask[:, 2, 1:] = 0  # agent 2 may only take action 0
    g = torch.randn(b, 3, 10) if specific else torch.randn(b, 10)
    return {'agent_state': torch.randn(b, 3, 6), 'global_state': g, 'action_mask': mask}


def test_maqac_shapes_and_mask():
    torch.manual_seed(0)
    m = MAQAC(agent_obs_shape=6, global_obs_shape=10, action_shape=5, twin_critic=True)
    o = obs()
    logit = m(o, mode='compute_actor')['logit']
    assert logit.shape == (6, 3, 5) and torch.all(logit.softmax(-1)[:, 2, 1:] == 0)
    assert m.q_all(o).shape == (2, 6, 3, 5)
    q1, q2 = m({'obs': o}, mode='compute_critic')['q_value']  # DI-engine's {'obs': ...} form
    assert q1.shape == (6, 3, 5) and not torch.allclose(q1, q2)
    shared_state = m.q_all(obs(specific=False))  # one global state valued for every agent
    assert torch.allclose(shared_state[:, :, 0], shared_state[:, :, 1])


@pytest.mark.slow  # the first policy build imports torch._dynamo (seconds) when run alone
def test_sac_discrete_policy_with_multi_agent_is_masac_and_learns():
    assert SACDiscretePolicy is DiscreteSACPolicy
    cfg = EasyDict(dict(multi_agent=True, model=dict(agent_obs_shape=6, global_obs_shape=10, action_shape=5,
                                                     twin_critic=True), learn=dict(auto_alpha=True)))
    policy = SACDiscretePolicy(cfg)
    assert type(policy) is MASACPolicy
    o = Batch.wrap({k: v.numpy() for k, v in obs(b=64).items()})
    action = policy.collect_mode.forward_batch(o)['action']
    assert action.shape == (64, 3) and (action[:, 2] == 0).all() and len(set(action[:, 0].tolist())) > 1
    # a bandit: the team earns 1 when agent 0 takes action 3; the critic and actor learn it per agent
    reward = (action[:, 0] == 3).astype(np.float32)
    data = Batch(obs=o, next_obs=o, action=action, reward=reward, done=np.ones(64, bool))
    for _ in range(100):
        stats = policy.learn_mode.forward(data)
    assert np.isfinite(stats['total_loss'])
    q = policy._model.q_all(o.to_torch()).min(0).values.mean(0)  # [A, n]
    assert q[0].argmax().item() == 3
    assert (policy.eval_mode.forward_batch(o)['action'][:, 0] == 3).mean() > 0.9
