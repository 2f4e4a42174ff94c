"""QMix / VDN models, the mixing TD loss, and QMIX beating VDN on the QMIX paper's two-step game."""
import copy

import numpy as np
import pytest
import torch

from ding.model import QMix, VDN
from ding.policy.qmix import masked_epsilon_greedy
from ding.rl_utils.mixing import mixing_td_loss
from dizoo.matrix_game.envs.two_step_game_env import TwoStepGameEnv


def obs(b=6):
    return {'agent_state': torch.randn(b, 2, 5), 'global_state': torch.randn(b, 3), 'action_mask': torch.ones(b, 2, 2)}


def test_qmix_mixing_is_monotonic_and_vdn_sums():
    torch.manual_seed(0)
    qmix = QMix(agent_num=2, obs_shape=5, global_obs_shape=3, action_shape=2, hidden_size_list=[16])
    agent_q = torch.randn(6, 2, requires_grad=True)
    total = qmix.mix(agent_q, torch.randn(6, 3))
    grad, = torch.autograd.grad(total.sum(), agent_q)
    assert total.shape == (6, ) and torch.all(grad >= 0)  # dQ_tot / dQ_i >= 0
    vdn = VDN(agent_num=2, obs_shape=5, action_shape=2, hidden_size_list=[16])
    o, action = obs(), torch.randint(0, 2, (6, 2))
    out = vdn(o, action=action)
    assert torch.allclose(out['total_q'], out['agent_q_act'].sum(-1))
    assert torch.allclose(out['agent_q_act'], out['logit'].gather(-1, action.unsqueeze(-1)).squeeze(-1))
    greedy = vdn(o, mix=True)
    assert torch.allclose(greedy['agent_q_act'], out['logit'].max(-1).values)
    independent = QMix(2, 5, 3, 2, [16], mixer='none')(o, action=action)
    assert independent['total_q'].shape == (6, 2)
    with pytest.raises(ValueError, match='lstm_type must be None'):
        QMix(2, 5, 3, 2, [16], lstm_type='gru')
    with pytest.raises(ValueError, match='mixer must be'):
        QMix(2, 5, 3, 2, [16], mixer='sum')


def test_mixing_td_loss_and_masked_exploration():
    total, next_total = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    td = mixing_td_loss(total, next_total, torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0]), 0.5)
    assert torch.allclose(td.target, torch.tensor([2.5, 0.0]))
    assert td.loss.item() == pytest.approx((1.5 ** 2 + 2.0 ** 2) / 2)
    per_agent = mixing_td_loss(torch.zeros(2, 3), torch.ones(2, 3), torch.tensor([1.0, 2.0]), torch.zeros(2), 1.0)
    assert torch.allclose(per_agent.target, torch.tensor([[2.0] * 3, [3.0] * 3]))  # team reward shared
    mask = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]]).repeat(500, 1, 1)
    logit = torch.zeros(500, 2, 3).masked_fill(mask == 0, -1e8)
    action = masked_epsilon_greedy(logit, mask, eps=1.0)
    assert (action[:, 0] == 0).all() and set(action[:, 1].tolist()) == {1, 2}


@pytest.mark.parametrize('unroll_len', [1, 4])
def test_qmix_and_vdn_learn_with_di_engine_s_rmsprop(unroll_len):
    """A learning rate tuned on DI-engine's QMIX (RMSprop, alpha 0.99, eps 1e-5, weight decay 1e-5)
    means the same here, for the feed-forward and the recurrent variant."""
    from ding.config import compile_config
    from ding.policy import QMIXPolicy
    from dizoo.matrix_game.config import two_step_game_qmix_config as module
    for policy_type in ('qmix', 'vdn'):
        user, create = copy.deepcopy(module.main_config), copy.deepcopy(module.create_config)
        user.policy.collect.unroll_len = unroll_len
        create.policy.type = policy_type
        cfg = compile_config(user, create_cfg=create, seed=0, save_cfg=False)
        optimizer = QMIXPolicy(cfg.policy, enable_field=['learn'])._optimizer
        group = optimizer.param_groups[0]
        assert type(optimizer) is torch.optim.RMSprop
        assert (group['lr'], group['alpha'], group['eps'], group['weight_decay'], group['momentum']) == (
            0.005, 0.99, 1e-5, 1e-5, 0)


def test_two_step_game():
    env = TwoStepGameEnv()
    obs = env.reset()
    assert obs['agent_state'].shape == (2, 5) and obs['global_state'].tolist() == [1, 0, 0]
    ts = env.step(np.array([1, 0]))
    assert ts.reward[0] == 0 and not ts.done and ts.obs['global_state'].tolist() == [0, 0, 1]
    ts = env.step(np.array([1, 1]))
    assert ts.done and ts.reward[0] == 8 and ts.info['eval_episode_return'] == 8
    env.reset()
    env.step(np.array([0, 1]))
    assert env.step(np.array([0, 0])).reward[0] == 7


@pytest.mark.slow
def test_qmix_finds_the_optimum_where_vdn_settles_for_seven():
    from benchmarks.learning.qmix_two_step import run
    torch.set_num_threads(1)
    assert run('qmix', 0, 1200)['final_return'] == 8.0
    assert run('vdn', 0, 1200)['final_return'] == 7.0
