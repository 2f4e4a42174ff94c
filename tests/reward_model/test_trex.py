"""TrexRewardModel: the ranking loss, the ranked snippet pairs it draws, learning to rank
demonstrations, the batch rewrite, and how it is built (DI-engine hands it the whole config)."""
import math
import pickle

import numpy as np
import pytest
import torch

from ding.data.batch import Batch
from ding.reward_model import TrexRewardModel, create_reward_model
from ding.reward_model.trex_reward_model import ranked_snippet_pairs
from ding.rl_utils.trex import trex_preference_accuracy, trex_ranking_loss


def test_ranking_loss_values():
    zero = torch.zeros(3)
    assert trex_ranking_loss(zero, zero, torch.tensor([0, 1, 1])).item() == pytest.approx(math.log(2), rel=1e-6)
    ri, rj = torch.tensor([0.0]), torch.tensor([2.0])
    # label 1: j is preferred; loss = log(1 + e^(Ri - Rj))
    assert trex_ranking_loss(ri, rj, torch.tensor([1])).item() == pytest.approx(math.log(1 + math.exp(-2)), rel=1e-6)
    assert trex_ranking_loss(ri, rj, torch.tensor([0])).item() == pytest.approx(math.log(1 + math.exp(2)), rel=1e-6)
    assert trex_ranking_loss(ri, rj, torch.tensor([1]), torch.tensor([3.0]), l1_reg=0.5).item() == \
        pytest.approx(math.log(1 + math.exp(-2)) + 1.5, rel=1e-6)
    with pytest.raises(ValueError, match='abs_reward_sum'):
        trex_ranking_loss(ri, rj, torch.tensor([1]), l1_reg=0.1)
    assert trex_preference_accuracy(torch.tensor([0., 3., 1.]), torch.tensor([1., 2., 5.]),
                                    torch.tensor([1, 0, 0])) == pytest.approx(2 / 3)


def tagged_demos(ranks=4, episodes=2, length=60):
    """demos[rank][episode][t] = [rank, t, episode]: each observation names where it came from."""
    return [[[np.array([r, t, e], np.float32) for t in range(length - 5 * e)] for e in range(episodes)]
            for r in range(ranks)]


def test_snippet_pairs_follow_the_ranking_and_the_progress_prior():
    np.random.seed(0)
    pairs, labels = ranked_snippet_pairs(tagged_demos(), num_trajs=5, num_snippets=300, min_snippet_length=5,
                                         max_snippet_length=100)
    assert len(pairs) == len(labels) == 305
    for (si, sj), label in zip(pairs, labels):
        rank_i, rank_j = si[0, 0], sj[0, 0]
        assert rank_i != rank_j and label == int(rank_j > rank_i)
        assert (si[:, 0] == rank_i).all() and (sj[:, 0] == rank_j).all()  # one episode per snippet
    for (si, sj), label in zip(pairs[:5], labels[:5]):  # whole episodes, subsampled every 3-6 steps
        assert si[0, 1] < 6 and 3 <= si[1, 1] - si[0, 1] <= 6 and len(si) >= 50 // 6
    for (si, sj), label in zip(pairs[5:], labels[5:]):
        assert len(si) == len(sj) and 3 <= len(si) <= 28  # ceil(L / 2) for L in [5, 55): every 2nd step
        assert (np.diff(si[:, 1]) == 2).all()
        better, worse = (sj, si) if label else (si, sj)
        assert better[0, 1] >= worse[0, 1]  # the better demonstration's snippet starts no earlier
    with pytest.raises(ValueError, match='at least 2 ranks'):
        ranked_snippet_pairs(tagged_demos(ranks=1), 0, 10, 5, 100)
    with pytest.raises(ValueError, match='shortest demonstration, 55 steps'):
        ranked_snippet_pairs(tagged_demos(), 0, 10, 55, 100)


def full_config(exp_name, **reward_model):
    rm = dict(type='trex', min_snippet_length=4, max_snippet_length=30, num_snippets=60, update_per_collect=2,
              learning_rate=5e-3)
    rm.update(reward_model)
    return dict(exp_name=str(exp_name), policy=dict(model=dict(obs_shape=2)), reward_model=rm)


def write_demos(folder, ranks=4, length=40, seed=0):
    """What trex_collecting_data writes: rank r's observations drift by +r on their first feature."""
    rng = np.random.default_rng(seed)
    demos = [[list(rng.normal(size=(length, 2)).astype(np.float32) + [1.0 * r, 0.0]) for _ in range(2)]
             for r in range(ranks)]
    folder.mkdir(exist_ok=True)
    for name, obj in (('episodes_data', demos), ('learning_returns', [[10.0 * (r + 1)] * 2 for r in range(ranks)])):
        with open(folder / f'{name}.pkl', 'wb') as f:
            pickle.dump(obj, f)
    return demos


def test_learns_to_rank_the_demonstrations_and_rewrites_rewards(tmp_path):
    write_demos(tmp_path)
    torch.manual_seed(0)
    np.random.seed(0)
    model = create_reward_model(full_config(tmp_path), 'cpu')  # DI-engine's call: the whole config
    assert isinstance(model, TrexRewardModel) and len(model.training_obs) == 60
    ret_i, ret_j = model._pair_returns(model.training_obs)
    labels = torch.as_tensor(model.training_labels)
    before = trex_preference_accuracy(ret_i, ret_j, labels)
    model.train()
    assert model.train_iter == 120
    assert before < 0.7 and model.last_stats['accuracy'] >= 0.9, (before, model.last_stats['accuracy'])
    best_first = [np.mean(r) for r in model.last_stats['predicted_returns']]
    assert best_first == sorted(best_first), best_first  # predicted returns rise with the rank
    assert (tmp_path / 'ckpt_reward_model' / 'latest.pth.tar').is_file()
    batch = Batch(obs=np.array([[-2.0, 0.0], [3.0, 0.0]], np.float32), action=np.zeros(2, np.int64),
                  reward=np.ones(2, np.float32))
    out = model.estimate(batch)
    assert out.reward.shape == (2, ) and out.reward[1] > out.reward[0]  # a "better" state is worth more
    assert out.reward[0] == pytest.approx(model.predict_traj_return([batch.obs[0]]), abs=1e-5)
    assert batch.reward.tolist() == [1.0, 1.0]  # the input is left alone
    model.collect_data(batch)  # learns from the demonstrations only
    assert len(model.training_obs) == 60
    model.clear_data()
    with pytest.raises(RuntimeError, match='no training pairs'):
        model.train()


def test_construction_errors(tmp_path):
    cfg = full_config(tmp_path)
    with pytest.raises(ValueError, match='needs the whole config'):
        create_reward_model(cfg['reward_model'])
    with pytest.raises(FileNotFoundError, match='trex_collecting_data'):
        create_reward_model(cfg)
    write_demos(tmp_path)
    with pytest.raises(ValueError, match='obs_shape is required'):
        TrexRewardModel(dict(cfg, policy=dict(model=dict())))
    with pytest.raises(ValueError, match='min_snippet_length is required'):
        TrexRewardModel(full_config(tmp_path, min_snippet_length=None))
    assert TrexRewardModel.default_config().num_snippets == 6000  # DI-engine's defaults
    assert TrexRewardModel.default_config().learning_rate == 1e-5
