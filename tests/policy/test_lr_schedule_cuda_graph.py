"""`learn.lr_scheduler` under `learn.cuda_graph`: the learning rate is a tensor the captured update
reads at every replay, so replayed updates follow the schedule as eager ones do (a float lr would
be baked into the graph at capture, the 4th update). Needs a GPU (skipped elsewhere)."""
import pytest
import torch

from ding.policy import DQNPolicy, SACPolicy
from qac_helpers import random_batch

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason='replaying a CUDA graph needs a GPU')
Q_MODEL = dict(obs_shape=3, action_shape=2, encoder_hidden_size_list=[16, 16])
SAC_MODEL = dict(obs_shape=3, action_shape=2, actor_head_hidden_size=16, critic_head_hidden_size=16)
STEP = dict(type='step', decay_epoch=2, decay_rate=0.3)


def make(cls, graphed, schedule):
    torch.manual_seed(0)
    extra = dict(nstep=1, priority=False, priority_IS_weight=False) if cls is DQNPolicy else {}
    model = Q_MODEL if cls is DQNPolicy else SAC_MODEL
    return cls(dict(cuda=True, model=model, learn=dict(cuda_graph=graphed, batch_size=32, lr_scheduler=schedule),
                    **extra))


def run(policy, steps, first=0):
    for step in range(first, first + steps):
        torch.manual_seed(100 + step)
        discrete = 2 if isinstance(policy, DQNPolicy) else 0
        policy.learn_mode.forward(random_batch(32, obs_dim=3, act_dim=2, seed=step, discrete_actions=discrete))
    return policy


@pytest.mark.parametrize('cls', [DQNPolicy, SACPolicy])
def test_replayed_updates_follow_the_schedule_like_eager_ones(cls):
    eager, graphed = run(make(cls, False, STEP), 10), run(make(cls, True, STEP), 10)
    assert graphed._graphed_update.captured == 1
    lr = graphed._optimizer.param_groups[0]['lr']
    assert isinstance(lr, torch.Tensor) and lr.is_cuda
    assert float(lr) == pytest.approx(float(eager._optimizer.param_groups[0]['lr']))
    for p, q in zip(eager._model.parameters(), graphed._model.parameters()):
        torch.testing.assert_close(q, p, rtol=1e-3, atol=1e-5)


def test_a_replayed_update_at_lr_zero_moves_nothing():
    # linear to 0 at update 5: captured at update 3 with lr > 0, replayed from update 5 on at lr 0
    policy = run(make(DQNPolicy, True, dict(epoch_num=5, min_lr_lambda=0.0)), 6)
    assert policy._graphed_update.captured == 1
    before = [p.detach().clone() for p in policy._model.parameters()]
    run(policy, 3, first=6)
    assert all(torch.equal(a, b) for a, b in zip(before, policy._model.parameters()))


def test_a_loaded_learn_state_goes_on_with_the_schedule_in_the_graph():
    whole = run(make(DQNPolicy, True, STEP), 10)
    first = run(make(DQNPolicy, True, STEP), 5)
    resumed = make(DQNPolicy, True, STEP)
    resumed.learn_mode.load_state_dict(first.learn_mode.state_dict())
    run(resumed, 5, first=5)
    assert resumed._scheduled_lr.updates == whole._scheduled_lr.updates == 10
    for p, q in zip(whole._model.parameters(), resumed._model.parameters()):
        torch.testing.assert_close(q, p, rtol=1e-3, atol=1e-5)
