"""`learn.lr_scheduler` (linear, cosine, step in DI-engine's key layout) for every policy, and PPO's
`learn.entropy_scheduler`: update k runs with the base value times factor(k), across updates, and
across a save / load of the learn state exactly as without the break."""
import io
import math

import numpy as np
import pytest
import torch

from ding.data.batch import Batch
from ding.policy import DQNPolicy, PPOPolicy
from ding.torch_utils.lr_schedule import optimizers_of, parse_schedule

LR = 1e-3
# the factors of updates 0..7, worked out by hand from each kind's formula
KINDS = {
    'linear': (dict(epoch_num=4, min_lr_lambda=0.2), [1.0, 0.8, 0.6, 0.4, 0.2, 0.2, 0.2, 0.2]),
    'cosine': (dict(type='cosine', epoch_num=6, min_lr_lambda=0.0, warmup_epoch=2),
               [0.0, 0.5, 1.0, 0.5 * (1 + math.cos(math.pi / 4)), 0.5, 0.5 * (1 + math.cos(3 * math.pi / 4)), 0.0,
                0.0]),
    'step': (dict(type='step', decay_epoch=3, decay_rate=0.5), [1, 1, 1, 0.5, 0.5, 0.5, 0.25, 0.25]),
}


def dqn(schedule):
    torch.manual_seed(0)
    return DQNPolicy(dict(model=dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[16]),
                          learn=dict(learning_rate=LR, lr_scheduler=schedule)))


def dqn_batch(seed):
    rng = np.random.default_rng(seed)
    return Batch(obs=rng.normal(size=(16, 4)).astype(np.float32), next_obs=rng.normal(size=(16, 4)).astype(np.float32),
                 action=rng.integers(0, 2, 16), reward=rng.normal(size=16).astype(np.float32),
                 done=np.zeros(16, bool))


@pytest.mark.parametrize('kind', KINDS)
def test_factors_of_each_kind(kind):
    spec, factors = KINDS[kind]
    schedule = parse_schedule(spec, 'lr_scheduler')
    assert [schedule.factor(k) for k in range(8)] == pytest.approx(factors, abs=1e-12)


@pytest.mark.parametrize('kind', KINDS)
def test_dqn_updates_run_with_the_scheduled_lr(kind):
    spec, factors = KINDS[kind]
    policy = dqn(spec)
    logged = [policy.learn_mode.forward(dqn_batch(k))['cur_lr'] for k in range(8)]
    assert logged == pytest.approx([LR * f for f in factors], abs=1e-12)
    # after the 8th update the optimizer holds the 9th update's rate
    assert policy._optimizer.param_groups[0]['lr'] == pytest.approx(LR * parse_schedule(spec, 'x').factor(8))


def test_the_step_is_what_adam_takes():
    # Adam's first step moves each weight by about lr: at factor 0 (cosine warm-up) nothing moves
    policy = dqn(KINDS['cosine'][0])
    before = [p.detach().clone() for p in policy._model.parameters()]
    policy.learn_mode.forward(dqn_batch(0))
    assert all(torch.equal(a, b) for a, b in zip(before, policy._model.parameters()))


def test_resumed_schedule_continues_like_an_uninterrupted_one():
    spec = KINDS['cosine'][0]
    whole = dqn(spec)
    whole_lrs = [whole.learn_mode.forward(dqn_batch(k))['cur_lr'] for k in range(8)]

    first = dqn(spec)
    for k in range(3):
        first.learn_mode.forward(dqn_batch(k))
    saved = io.BytesIO()
    torch.save(first.learn_mode.state_dict(), saved)
    saved.seek(0)
    resumed = dqn(spec)
    resumed.learn_mode.load_state_dict(torch.load(saved, weights_only=False))
    later_lrs = [resumed.learn_mode.forward(dqn_batch(k))['cur_lr'] for k in range(3, 8)]
    assert later_lrs == whole_lrs[3:]
    for a, b in zip(whole._model.parameters(), resumed._model.parameters()):
        assert torch.equal(a, b)


def test_a_learn_state_saved_without_a_schedule_starts_it_at_update_zero(caplog):
    plain = dqn(None)
    plain.learn_mode.forward(dqn_batch(0))
    scheduled = dqn(KINDS['step'][0])
    scheduled.learn_mode.load_state_dict(plain.learn_mode.state_dict())
    assert 'the schedule starts from update 0' in caplog.text
    assert scheduled._scheduled_lr.updates == 0


@pytest.mark.parametrize('spec, message', [
    (dict(type='exp', epoch_num=3), "type must be one of linear, cosine, step, got 'exp'"),
    (dict(epoch_num=3, min_lr=0.1), "unknown ['min_lr']"),
    (dict(type='step', decay_rate=0.5), "missing ['decay_epoch']"),
    (dict(epoch_num=0), 'epoch_num must be positive'),
    (dict(epoch_num=5, min_lr_lambda=1.5), 'min_lr_lambda must be in [0, 1]'),
    ((100, 0.1, 3), 'a pair is (epoch_num, min_lr_lambda)'),
])
def test_bad_schedules_are_refused_naming_the_key(spec, message):
    with pytest.raises(ValueError, match='policy.learn.lr_scheduler') as err:
        dqn(spec)
    assert message in str(err.value)


def test_di_engine_ppof_pair_is_a_linear_schedule():
    assert parse_schedule((100, 0.1), 'k') == parse_schedule(dict(epoch_num=100, min_lr_lambda=0.1), 'k')


def ppo(**learn):
    torch.manual_seed(0)
    return PPOPolicy(dict(model=dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[16]),
                          learn=dict(learning_rate=LR, epoch_per_collect=2, batch_size=32, entropy_weight=0.1,
                                     **learn)))


def ppo_batch(seed, n=64):
    rng = np.random.default_rng(seed)
    adv = rng.normal(size=n).astype(np.float32)
    return Batch(obs=rng.normal(size=(n, 4)).astype(np.float32), action=rng.integers(0, 2, n),
                 logp=np.full(n, np.log(0.5), np.float32), value=np.zeros(n, np.float32), adv=adv,
                 **{'return': adv.copy()})


def test_ppo_entropy_weight_decays_and_resumes():
    spec = dict(epoch_num=4, min_lr_lambda=0.0)
    whole = ppo(entropy_scheduler=spec, lr_scheduler=spec)
    # one learn_mode.forward (one collect's data: 2 epochs x 2 minibatches) is one update of the schedule
    weights = [[out['entropy_weight'] for out in whole.learn_mode.forward(ppo_batch(k))] for k in range(6)]
    assert weights == [[pytest.approx(0.1 * f)] * 4 for f in (1.0, 0.75, 0.5, 0.25, 0.0, 0.0)]
    lrs = [out['cur_lr'] for out in whole.learn_mode.forward(ppo_batch(6))]
    assert lrs == [0.0] * 4

    first = ppo(entropy_scheduler=spec, lr_scheduler=spec)
    for k in range(2):
        first.learn_mode.forward(ppo_batch(k))
    resumed = ppo(entropy_scheduler=spec, lr_scheduler=spec)
    resumed.learn_mode.load_state_dict(first.learn_mode.state_dict())
    later = [[out['entropy_weight'] for out in resumed.learn_mode.forward(ppo_batch(k))] for k in range(2, 6)]
    assert later == weights[2:]


def test_ppo_entropy_decay_changes_the_loss():
    # with the weight at 0 the entropy term is gone: total = policy + value_weight * value
    out = ppo(entropy_scheduler=dict(epoch_num=1, min_lr_lambda=0.0))
    out.learn_mode.forward(ppo_batch(0))
    second = out.learn_mode.forward(ppo_batch(1))[0]
    assert second['entropy_weight'] == 0.0
    assert second['total_loss'] == pytest.approx(second['policy_loss'] + 0.5 * second['value_loss'], rel=1e-5)


def test_every_optimizer_group_of_a_many_optimizer_policy_is_scaled():
    from ding.policy import SACPolicy
    torch.manual_seed(0)
    sac = SACPolicy(dict(model=dict(obs_shape=3, action_shape=1),
                         learn=dict(lr_scheduler=dict(type='step', decay_epoch=1, decay_rate=0.5))))
    before = [[float(g['lr']) for g in opt.param_groups] for opt in optimizers_of(sac)]
    assert sum(len(groups) for groups in before) >= 2  # critic and actor (and the temperature)
    sac._after_update()
    after = [[float(g['lr']) for g in opt.param_groups] for opt in optimizers_of(sac)]
    assert after == [[lr * 0.5 for lr in groups] for groups in before]


def di_style(cls_body=None, **learn):
    from tests.middleware.di_engine_style import DIStyleDQNPolicy
    cls = type('Scheduled', (DIStyleDQNPolicy, ), cls_body or {})
    torch.manual_seed(0)
    return cls(dict(model=dict(obs_shape=4, action_shape=2), learn=dict(learning_rate=LR, **learn)))


def di_style_batch(seed):
    batch = dqn_batch(seed)
    return [{k: torch.as_tensor(batch[k][i]) for k in ('obs', 'next_obs', 'action', 'reward', 'done')}
            for i in range(len(batch))]


def test_a_di_engine_style_policy_gets_the_schedule():
    policy = di_style(lr_scheduler=KINDS['linear'][0])
    lrs = [policy.learn_mode.forward(di_style_batch(k))['cur_lr'] for k in range(6)]
    assert lrs == pytest.approx([LR * f for f in KINDS['linear'][1][:6]])


def test_a_di_engine_style_policy_that_schedules_the_key_itself_is_left_to_it():
    # DI-engine's PPO builds a LambdaLR from learn.lr_scheduler and steps it after each update: applied once
    def _init_learn(self):
        super(type(self), self)._init_learn()
        n, m = self._cfg.learn.lr_scheduler['epoch_num'], self._cfg.learn.lr_scheduler['min_lr_lambda']
        self._lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self._optimizer, lambda k: max(1 - k * (1 - m) / n, m))

    def _forward_learn(self, data):
        out = super(type(self), self)._forward_learn(data)
        self._lr_scheduler.step()
        return out

    policy = di_style(dict(_init_learn=_init_learn, _forward_learn=_forward_learn), lr_scheduler=KINDS['linear'][0])
    assert policy._scheduled_lr is None
    lrs = [policy.learn_mode.forward(di_style_batch(k))['cur_lr'] for k in range(6)]
    assert lrs == pytest.approx([LR * f for f in KINDS['linear'][1][:6]])
