"""GailRewardModel: the discriminator's loss and reward, learning to tell expert pairs from the
agent's, expert data from DI-engine's `expert_data.pkl`, and the batch rewrite in a pipeline."""
import math
import pickle

import numpy as np
import pytest
import torch

from ding.data.batch import Batch
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import reward_estimator
from ding.reward_model import GailRewardModel, create_reward_model
from ding.rl_utils.gail import gail_discriminator_loss, gail_reward


def test_loss_and_reward_values():
    half = torch.full((4, ), 0.5)
    assert gail_discriminator_loss(half, half).item() == pytest.approx(2 * math.log(2), rel=1e-6)
    # right answers (agent 0.9, expert 0.1) cost less than wrong ones
    assert gail_discriminator_loss(torch.full((4, ), .9), torch.full((4, ), .1)) < \
        gail_discriminator_loss(torch.full((4, ), .1), torch.full((4, ), .9))
    assert gail_reward(torch.tensor([0.5, 1.0])).tolist() == pytest.approx([math.log(2), 0.0], abs=1e-6)
    assert torch.isfinite(gail_reward(torch.zeros(1))).all()


def transitions(n, expert, seed=0):
    """CartPole-shaped transitions; the expert pushes towards the pole's lean, the agent away."""
    rng = np.random.default_rng(seed)
    obs = rng.normal(size=(n, 4)).astype(np.float32)
    good = (obs[:, 2] > 0).astype(np.int64)
    return Batch(obs=obs, action=good if expert else 1 - good, reward=np.ones(n, np.float32),
                 next_obs=obs, done=np.zeros(n, bool))


def make_model(**kw):
    torch.manual_seed(0)
    np.random.seed(0)
    return GailRewardModel({'input_size': 5, 'hidden_size': 32, 'update_per_collect': 100, 'learning_rate': 1e-2, **kw})


def test_discriminator_learns_to_reward_the_expert_pairs_more():
    model = make_model()
    model.load_expert_data(transitions(512, expert=True, seed=1))
    model.collect_data(transitions(512, expert=False, seed=2))
    test_expert, test_agent = transitions(200, True, seed=3), transitions(200, False, seed=3)
    before = model.estimate(test_expert).reward.mean() - model.estimate(test_agent).reward.mean()
    model.train()
    expert_reward, agent_reward = model.estimate(test_expert).reward, model.estimate(test_agent).reward
    assert abs(before) < 0.3 and expert_reward.mean() > agent_reward.mean() + 1.0, (before, model.last_stats)
    assert model.train_iter == 100 and model.last_stats['gail_loss'] < 2 * math.log(2)
    assert test_expert.reward.tolist() == [1.0] * 200  # estimate leaves its input alone


def test_expert_data_from_di_engines_pickle_and_clear_errors(tmp_path):
    rows = [{'obs': r.obs, 'action': r.action, 'reward': r.reward} for r in transitions(8, expert=True)]
    with open(tmp_path / 'expert_data.pkl', 'wb') as f:
        pickle.dump(rows, f)
    model = create_reward_model(dict(reward_model=dict(type='gail', input_size=5, data_path=str(tmp_path))))
    assert isinstance(model, GailRewardModel) and model._expert.shape == (8, 5)
    with pytest.raises(FileNotFoundError, match='no expert data at'):
        GailRewardModel(dict(input_size=5, data_path=str(tmp_path / 'missing')))
    with pytest.raises(RuntimeError, match='no expert data'):
        GailRewardModel(dict(input_size=5)).train()
    with pytest.raises(ValueError, match='has 5 numbers .* input_size is 4'):
        GailRewardModel(dict(input_size=4)).collect_data(transitions(2, expert=False))


def test_reward_estimator_rewrites_the_sampled_batch():
    model = make_model(update_per_collect=1)
    ctx = OnlineRLContext(train_data=transitions(16, expert=False))
    reward_estimator(None, model)(ctx)
    with torch.no_grad():
        d = model.reward_model(torch.as_tensor(model._pairs(ctx.train_data)))
    assert np.allclose(ctx.train_data.reward, -torch.log(d + 1e-8).numpy(), atol=1e-6)
