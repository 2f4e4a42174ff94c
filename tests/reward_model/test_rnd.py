"""RndRewardModel: the bonus fused into sampled batches, trained through `trainer(cfg, reward_model)`."""
import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.data.batch import Batch
from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import OffPolicyLearner, trainer
from ding.reward_model import RndRewardModel, create_reward_model


def _batch(n=16, seed=0, reward=0.5, dim=4):
    rng = np.random.default_rng(seed)
    return Batch(obs=rng.normal(size=(n, dim)).astype(np.float32), action=np.zeros(n, np.int64),
                 reward=np.full(n, reward, np.float32), next_obs=rng.normal(size=(n, dim)).astype(np.float32),
                 done=np.zeros(n, bool))


def _model(**kw):
    torch.manual_seed(0)
    np.random.seed(0)
    cfg = dict(obs_shape=4, batch_size=32, update_per_collect=20, hidden_size_list=[32, 32])
    cfg.update(kw)
    return RndRewardModel(EasyDict(cfg))


@pytest.mark.parametrize('fusion', ['add', 'new', 'assign'])
def test_estimate_fuses_the_bonus_without_touching_the_input(fusion):
    model = _model(intrinsic_reward_type=fusion, intrinsic_reward_weight=0.5, extrinsic_reward_norm_max=2)
    data = _batch()
    out = model.estimate(data)
    bonus = model.intrinsic_reward(data['obs'])
    assert bonus.min() == 0.0 and abs(bonus.max() - 1.0) < 1e-5  # min-max scaled within the batch
    assert np.all(data['reward'] == 0.5)  # the buffer's rows keep their reward
    if fusion == 'add':
        np.testing.assert_allclose(out['reward'], 0.25 + 0.5 * bonus, rtol=1e-6)
    elif fusion == 'new':
        np.testing.assert_allclose(out['reward'], 0.25)
        np.testing.assert_allclose(out['intrinsic_reward'], bonus)
    else:
        np.testing.assert_allclose(out['reward'], bonus)
    assert np.array_equal(out['obs'], data['obs'])


def test_nstep_rewards_get_the_bonus_on_their_first_step():
    model = _model(extrinsic_reward_norm=False)
    data = _batch()
    data['reward'] = np.ones((16, 3), np.float32)
    out = model.estimate(data)
    assert out['reward'].shape == (16, 3) and np.all(out['reward'][:, 1:] == 1.0)
    assert np.all(out['reward'][:, 0] >= 1.0) and out['reward'][:, 0].max() > 1.0


def test_training_makes_seen_states_less_novel_than_unseen_ones():
    model = _model(obs_norm=False, learning_rate=3e-3)
    seen = _batch(n=64, seed=1)['obs'] * 0.1
    unseen = _batch(n=64, seed=2)['obs'] * 0.1 + 3.0
    error = lambda obs: model.reward_model(torch.as_tensor(obs)).mean().item()  # noqa: E731
    before = error(seen)
    for _ in range(5):
        model.collect_data(Batch(obs=seen))
        model.train()
    assert error(seen) < 0.5 * before
    assert error(unseen) > 2 * error(seen)


def test_trainer_given_a_reward_model_trains_it_on_the_collected_data():
    model = _model()
    cfg = EasyDict(reward_model=dict(clear_buffer_per_iters=2))
    with task.start(ctx=OnlineRLContext()):
        middleware = trainer(cfg, model)
        assert middleware.middleware_name == 'reward_model_trainer'
        ctx = OnlineRLContext()
        ctx.trajectories = _batch(n=40)
        middleware(ctx)
        assert len(model._kept) == 40 and model.train_cnt == 20 and ctx.trajectories is not None
        ctx.episodes, ctx.trajectories = [_batch(n=5), _batch(n=7)], None
        middleware(ctx)  # episodes are used too; the second call clears the kept data
        assert model.train_cnt == 40 and len(model._kept) == 0


def test_offpolicy_learner_trains_on_the_rewritten_reward():
    from ding.data import DequeBuffer
    model = _model(intrinsic_reward_type='assign')
    buffer_ = DequeBuffer(size=100)
    buffer_.push(_batch(n=32, reward=0.0))
    seen = []

    class Learn:
        def forward(self, data):
            seen.append(np.asarray(data['reward']).copy())
            return {'total_loss': 0.0}

    cfg = EasyDict(policy=dict(learn=dict(update_per_collect=2, batch_size=8)))
    with task.start(ctx=OnlineRLContext()):
        OffPolicyLearner(cfg, Learn(), buffer_, reward_model=model)(OnlineRLContext())
    assert len(seen) == 2 and all(r.max() == pytest.approx(1.0) for r in seen)


def test_config_errors_and_registry():
    with pytest.raises(ValueError, match='obs_shape'):
        RndRewardModel(EasyDict())
    with pytest.raises(ValueError, match='intrinsic_reward_type'):
        RndRewardModel(EasyDict(obs_shape=4, intrinsic_reward_type='mul'))
    built = create_reward_model(EasyDict(type='rnd', obs_shape=4, hidden_size_list=[8, 8]))
    assert isinstance(built, RndRewardModel)


def test_state_dict_round_trip(tmp_path):
    a, b = _model(), _model(hidden_size_list=[32, 32])
    torch.manual_seed(5)
    b.reward_model.predictor.apply(lambda m: torch.nn.init.normal_(m.weight) if hasattr(m, 'weight') else None)
    a.collect_data(_batch(n=20))
    b.load_state_dict(a.state_dict())
    data = _batch()
    assert np.array_equal(a.estimate(data)['reward'], b.estimate(data)['reward'])
    path = a.save(str(tmp_path), 'last')
    assert path.endswith('reward_model/ckpt/ckpt_last.pth.tar') and torch.load(path, weights_only=False)['model']


def _transitions(n, seed, shift=0.0):
    """A deterministic toy dynamics: the action moves one coordinate of the observation."""
    rng = np.random.default_rng(seed)
    obs = rng.normal(size=(n, 4)).astype(np.float32) + shift
    action = rng.integers(0, 3, n)
    next_obs = obs.copy()
    next_obs[np.arange(n), action] += 1.0
    return Batch(obs=obs, next_obs=next_obs, action=action, reward=np.zeros(n, np.float32), done=np.zeros(n, bool))


def test_icm_learns_the_dynamics_and_rewards_the_unfamiliar():
    from ding.reward_model import ICMRewardModel
    torch.manual_seed(0)
    np.random.seed(0)
    model = create_reward_model(EasyDict(type='icm', obs_shape=4, action_shape=3, hidden_size_list=[32, 32],
                                         batch_size=64, update_per_collect=100, learning_rate=3e-3))
    assert isinstance(model, ICMRewardModel)
    seen = _transitions(256, 0)
    model.collect_data(seen)
    model.train()
    model.train()
    assert model.last_stats['icm_action_accuracy'] > 0.8  # the inverse model reads the action off phi
    mixed = Batch.cat([_transitions(32, 1), _transitions(32, 2, shift=6.0)])
    raw = model.intrinsic_reward(mixed['obs'], mixed['next_obs'], mixed['action'])
    assert raw[32:].mean() > raw[:32].mean()  # far-away states are the novel ones
    out = model.estimate(mixed)
    np.testing.assert_allclose(out['reward'], 0.003 * raw, rtol=1e-5)
    with pytest.raises(ValueError, match='action_shape'):
        ICMRewardModel(EasyDict(obs_shape=4, action_shape=1))
