"""MAVAC's outputs and masks, per-agent GAE, and PPOPolicy(multi_agent=True) -> MAPPOPolicy."""
import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.data.batch import Batch
from ding.framework.middleware.advantage import add_gae
from ding.model import MAVAC
from ding.policy import MAPPOPolicy, PPOPolicy
from ding.rl_utils.returns import gae


def obs(b=4, a=3, specific=True, mask=None):
    g = torch.randn(b, a, 10) if specific else torch.randn(b, 10)
    return {'agent_state': torch.randn(b, a, 6), 'global_state': g,
            'action_mask': torch.ones(b, a, 5) if mask is None else mask}


def model(**kw):
    return MAVAC(agent_obs_shape=6, global_obs_shape=10, action_shape=5, agent_num=3, actor_head_hidden_size=16,
                 critic_head_hidden_size=16, **kw)


def test_mavac_shapes_mask_and_shared_state():
    torch.manual_seed(0)
    m = model()
    mask = torch.ones(4, 3, 5)
    mask[:, 1, 1:] = 0  # agent 1 may only take action 0
    out = m(obs(mask=mask), mode='compute_actor_critic')
    assert out['logit'].shape == (4, 3, 5) and out['value'].shape == (4, 3)
    probs = out['logit'].softmax(-1)
    assert torch.all(probs[:, 1, 1:] == 0) and torch.allclose(probs[:, 1, 0], torch.ones(4))
    shared = obs(specific=False)  # one global state [B, g] is valued per agent: same value, shared critic
    v = m(shared, mode='compute_critic')['value']
    assert v.shape == (4, 3) and torch.allclose(v[:, 0], v[:, 2])
    cont = model(action_space='continuous')(obs(), mode='compute_actor')['logit']
    assert cont['mu'].shape == (4, 3, 5) and torch.all(cont['sigma'] > 0)
    with pytest.raises(ValueError, match='mode must be one of'):
        m(shared, mode='compute_q')


def test_mavac_separate_parameters_per_agent():
    torch.manual_seed(0)
    same = obs()
    same['agent_state'][:] = same['agent_state'][:, :1]  # every agent sees the same thing
    same['global_state'][:] = same['global_state'][:, :1]
    shared, separate = model(share_param=True), model(share_param=False)
    out = shared(same)
    assert torch.allclose(out['value'][:, 0], out['value'][:, 1])
    out = separate(same)
    assert not torch.allclose(out['value'][:, 0], out['value'][:, 1])
    assert not torch.allclose(out['logit'][:, 0], out['logit'][:, 1])
    n_shared = sum(p.numel() for p in shared.parameters())
    assert sum(p.numel() for p in separate.parameters()) == 3 * n_shared


def test_gae_per_agent_matches_single_agent_gae():
    rng = np.random.default_rng(0)
    n_env, t, a = 2, 5, 3
    n = n_env * t
    value = rng.normal(size=(n, a)).astype(np.float32)
    reward = rng.normal(size=n).astype(np.float32)
    done = np.zeros(n, bool)
    done[2] = True
    batch = Batch(value=value.copy(), reward=reward, done=done, truncated=np.zeros(n, bool),
                  env_id=np.repeat(np.arange(n_env), t), next_obs=np.zeros((n, 1), np.float32))

    class Critic:  # the bootstrap value of the segment's last next_obs
        def forward_batch(self, o):
            return {'value': np.full((len(o), a), 0.5, np.float32)}

    out = add_gae(batch, None, Critic(), 0.9, 0.8)
    assert out['adv'].shape == (n, a) and np.allclose(out['return'], out['adv'] + value)
    for agent in range(a):  # each agent's column is plain GAE on the shared reward
        for e in range(n_env):
            rows = slice(e * t, (e + 1) * t)
            nv = np.append(value[rows, agent][1:], 0.5)
            end = done[rows].copy()
            end[-1] = True
            expect = gae(reward[rows], value[rows, agent], nv, done[rows], end, gamma=0.9, lambda_=0.8)
            np.testing.assert_allclose(out['adv'][rows, agent], expect, rtol=1e-5, atol=1e-6)


@pytest.mark.slow  # the first policy build imports torch._dynamo (seconds) when run alone
def test_ppo_policy_with_multi_agent_is_mappo_and_learns_a_step():
    cfg = EasyDict(dict(multi_agent=True, model=dict(agent_obs_shape=6, global_obs_shape=10, action_shape=5,
                                                     agent_num=3, actor_head_hidden_size=16,
                                                     critic_head_hidden_size=16),
                        learn=dict(batch_size=4, epoch_per_collect=1)))
    policy = PPOPolicy(cfg)
    assert type(policy) is MAPPOPolicy and type(PPOPolicy(EasyDict(model=dict(obs_shape=4, action_shape=2)))) is \
        PPOPolicy
    o = Batch.wrap({k: v.numpy() for k, v in obs(b=8).items()})
    out = policy.collect_mode.forward_batch(o)
    assert out['action'].shape == (8, 3) and out['logp'].shape == (8, 3) and out['value'].shape == (8, 3)
    assert policy.eval_mode.forward_batch(o)['action'].shape == (8, 3)
    data = Batch(obs=o, action=out['action'], logp=out['logp'], value=out['value'],
                 adv=np.ones((8, 3), np.float32), **{'return': out['value'] + 1})
    before = [p.detach().clone() for p in policy._model.parameters()]
    stats = policy.learn_mode.forward(data)
    assert len(stats) == 2 and np.isfinite(stats[0]['total_loss'])
    assert any(not torch.equal(b, p) for b, p in zip(before, policy._model.parameters()))
    state = policy.learn_mode.state_dict()
    assert state['return_stats']['count'] > 1  # value normalisation saw the returns
