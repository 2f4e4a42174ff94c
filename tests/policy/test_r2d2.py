"""R2D2: the DRQN model, value rescaling, the sequence loss, the per-env hidden state of the
acting modes, sequence replay, and the recorded start states under real env managers."""
import functools

import numpy as np
import pytest
import torch

from ding.data import DequeBuffer
from ding.data.batch import Batch
from ding.data.buffer.sequence_sampling import sample_sequences
from ding.envs import BaseEnvManagerV2, DingEnvWrapper, SubprocessEnvManagerV2
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import StepCollector, nstep_reward_enhancer
from ding.model import DRQN
from ding.policy import R2D2Policy
from ding.rl_utils import (r2d2_sequence_td_error, sequence_priority, sequence_valid_mask, value_inv_transform,
                           value_transform)
from ding.utils.dicts import deep_merge
from easydict import EasyDict
from tests.envs.mock_envs import CountingEnv

H = 8


def small_policy(**over):
    cfg = dict(model=dict(obs_shape=2, action_shape=3, encoder_hidden_size_list=[16, H]), burnin_step=2,
               learn_unroll_len=6, nstep=2, priority=False, priority_IS_weight=False,
               collect=dict(unroll_len=8, env_num=None), learn=dict(batch_size=4))
    return R2D2Policy(deep_merge(cfg, over))


# --- model -------------------------------------------------------------------------------
def test_drqn_sequence_unroll_matches_step_by_step_and_di_engine_state_form():
    torch.manual_seed(0)
    model = DRQN(4, 2, encoder_hidden_size_list=[16, H])
    seq = torch.randn(5, 3, 4)
    whole = model({'obs': seq, 'prev_state': None}, saved_state_timesteps=[2, 5])
    state, logits = None, []
    for t in range(5):
        out = model({'obs': seq[t], 'prev_state': state}, inference=True)
        state, logits = out['next_state'], logits + [out['logit']]
        if t == 1:
            assert torch.allclose(state, whole['saved_state'][0], atol=1e-6)
    assert torch.allclose(torch.stack(logits), whole['logit'], atol=1e-5)
    assert torch.allclose(state, whole['next_state'], atol=1e-6) and whole['hidden_state'].shape == (5, 3, H)
    # DI-engine's list-of-dicts state: the same numbers, returned in its own form
    listed = model({'obs': seq[0], 'prev_state': [None, None, None]}, inference=True)
    assert isinstance(listed['next_state'], list) and listed['next_state'][0]['h'].shape == (1, 1, H)
    again = model({'obs': seq[1], 'prev_state': listed['next_state']}, inference=True)
    assert torch.allclose(again['logit'], logits[1], atol=1e-5)
    from ding.model.template.q_learning import DRQN as template_drqn
    assert template_drqn is DRQN


def test_drqn_reset_starts_a_sample_from_the_zero_state():
    torch.manual_seed(0)
    model = DRQN(4, 2, encoder_hidden_size_list=[16, H])
    seq, start = torch.randn(6, 2, 4), torch.randn(2, 2, H)
    reset = torch.zeros(6, 2, dtype=torch.bool)
    reset[3, 1] = True
    out = model({'obs': seq, 'prev_state': start, 'reset': reset})['logit']
    plain = model({'obs': seq, 'prev_state': start})['logit']
    fresh = model({'obs': seq[3:], 'prev_state': None})['logit']
    assert torch.allclose(out[:, 0], plain[:, 0], atol=1e-6)  # the other sample is untouched
    assert torch.allclose(out[:3, 1], plain[:3, 1], atol=1e-6)
    assert torch.allclose(out[3:, 1], fresh[:, 1], atol=1e-5)
    with pytest.raises(ValueError, match=r'\[B, 2, H\]'):
        model({'obs': seq[0], 'prev_state': torch.zeros(2, H)}, inference=True)


# --- losses ------------------------------------------------------------------------------
def test_value_rescale_inverse_and_shape():
    x = torch.tensor([-1e4, -30.0, -1.0, 0.0, 0.5, 3.0, 250.0, 1e5], dtype=torch.float64)
    assert torch.allclose(value_inv_transform(value_transform(x)), x, rtol=1e-9, atol=1e-9)
    assert value_transform(torch.tensor(3.0)).item() == pytest.approx(1.0 + 0.03)  # sqrt(4) - 1 + eps * 3
    assert value_transform(torch.tensor(-3.0)).item() == pytest.approx(-1.03)


def test_sequence_valid_mask_rows_and_bootstraps():
    nstep = torch.tensor([[2, 2, 2, 1, 2, 2]])
    done = torch.tensor([[False, False, False, True, False, False]])
    ended = done.clone()
    valid = sequence_valid_mask(nstep, done, ended, burnin_step=1)
    # row 0: burn-in; rows 1-2 bootstrap inside; row 3 terminal; row 4 bootstraps at 6 (outside); row 5 too
    assert valid.tolist() == [[False, True, True, True, False, False]]
    cut = torch.tensor([[False, False, True, False, False, False]])  # a time-limit cut ends row 2's window
    assert sequence_valid_mask(nstep, done, ended | cut, 0).tolist() == [[True, True, False, True, False, False]]


def test_r2d2_td_error_hand_computed_without_rescale():
    q = torch.tensor([[[1.0, 2.0], [0.5, 0.0], [3.0, 1.0]]], requires_grad=True)  # B=1, T=3, A=2
    target_q = torch.tensor([[[0.0, 0.0], [0.0, 0.0], [5.0, 7.0]]])
    online_q = torch.tensor([[[0.0, 0.0], [0.0, 0.0], [9.0, 1.0]]])  # double DQN picks action 0 at t=2
    action = torch.tensor([[1, 0, 0]])
    reward = torch.tensor([[[1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]])
    nstep = torch.tensor([[2, 1, 1]])
    done = torch.tensor([[False, True, False]])
    valid = torch.tensor([[True, True, False]])
    out = r2d2_sequence_td_error(q, target_q, online_q, action, reward, nstep, done, valid, 0.5, value_rescale=False)
    # row 0: y = 1 + 0.5 * 1 + 0.25 * Q_target(s_2, a=0)=5 -> 2.75; Q = 2 -> |td| 0.75
    # row 1: terminal: y = 1; Q = 0.5 -> |td| 0.5
    assert out.target[0, :2].tolist() == pytest.approx([2.75, 1.0])
    assert out.td_error_abs[0].tolist() == pytest.approx([0.75, 0.5, 0.0])
    assert out.loss.item() == pytest.approx((0.75 ** 2 + 0.5 ** 2) / 2)
    out.loss.backward()
    assert q.grad[0, 2].abs().sum() == 0  # the invalid row gives no gradient
    assert sequence_priority(out.td_error_abs, valid).item() == pytest.approx(0.9 * 0.75 + 0.1 * 1.25 / 2)


# --- learner -----------------------------------------------------------------------------
def _sequence_batch(policy, batch=4, steps=8, seed=0):
    rng = np.random.default_rng(seed)
    done = np.zeros((batch, steps), bool)
    done[0, 4] = True
    return Batch(obs=rng.normal(size=(batch, steps, 2)).astype(np.float32), action=rng.integers(0, 3, (batch, steps)),
                 reward=rng.random((batch, steps, 2)).astype(np.float32), done=done,
                 truncated=np.zeros((batch, steps), bool), nstep=np.where(done, 1, 2),
                 next_obs=rng.normal(size=(batch, steps, 2)).astype(np.float32),
                 prev_state=rng.normal(size=(batch, steps, 2, H)).astype(np.float32))


def test_burn_in_gives_no_gradient_and_learn_output():
    policy = small_policy(priority=True)
    data = _sequence_batch(policy).to_torch()
    data['obs'] = data.obs.clone().requires_grad_(True)
    reward, done = data.reward, data.done.float()
    td = policy._td_loss(data, reward, done, None)
    td.loss.backward()
    grad = data.obs.grad.abs().sum(dim=(0, 2))
    assert (grad[:2] == 0).all() and (grad[2:6] > 0).all()  # burn-in steps 0-1 only warm the state
    assert td.priority.shape == (4, )
    out = policy.learn_mode.forward(_sequence_batch(policy, seed=1))
    assert np.isfinite(out['total_loss']) and out['priority'].shape == (4, ) and 0 < out['valid_fraction'] <= 1


def test_learner_rejects_single_transitions_with_a_clear_error():
    policy = small_policy()
    flat = Batch(obs=np.zeros((4, 2), np.float32), action=np.zeros(4, np.int64), reward=np.zeros((4, 2), np.float32),
                 done=np.zeros(4, bool), next_obs=np.zeros((4, 2), np.float32))
    with pytest.raises(ValueError, match='collect.unroll_len'):
        policy.learn_mode.forward(flat)


# --- acting: per-env hidden state --------------------------------------------------------
def test_collect_keeps_one_state_per_env_and_resets_rows():
    policy = small_policy()
    mode = policy.collect_mode
    obs = np.ones((3, 2), np.float32)
    first = mode.forward_batch(obs, eps=0.0)
    assert np.all(first['prev_state'] == 0)
    second = mode.forward_batch(obs, eps=0.0)
    assert np.all(second['prev_state'] != 0)
    mode.reset([1])
    third = mode.forward_batch(obs, eps=0.0)
    assert np.all(third['prev_state'][1] == 0) and np.all(third['prev_state'][0] != 0)
    # DI-engine's {env_id: obs} form acts for those envs' rows only
    saved = mode.state_dict()
    out = mode.forward({2: obs[0]}, eps=0.0)
    assert np.allclose(out[2]['prev_state'], saved['hidden_state']['states'][2].numpy())
    mode.load_state_dict(saved)  # a resumed collector continues with the states it had
    assert torch.equal(policy._collect_states.get(torch.arange(3)), saved['hidden_state']['states'])
    with pytest.raises(ValueError, match='without env ids'):
        mode.forward_batch(np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match='alternating'):  # an env the forwards never saw ended an episode
        mode.reset([5])


def _collect_cfg(n_sample=4):
    return EasyDict(seed=0, policy=dict(nstep=2, discount_factor=0.9, collect=dict(n_sample=n_sample, unroll_len=8)))


@pytest.mark.parametrize('manager', ['base', 'subprocess'])
def test_collected_rows_carry_the_actor_state_reset_at_episode_start(manager):
    fns = [functools.partial(DingEnvWrapper, CountingEnv(terminate_at=5)) for _ in range(2)]
    env = BaseEnvManagerV2(fns) if manager == 'base' else SubprocessEnvManagerV2(fns, dict(worker_num=2))
    policy = small_policy()
    collector = StepCollector(_collect_cfg(), policy.collect_mode, env)
    ctx = OnlineRLContext(collect_kwargs={'eps': 0.5})
    try:
        collector(ctx)
    finally:
        env.close()
    traj = ctx.trajectories
    assert len(traj) == 32 and traj.prev_state.shape == (32, 2, H)
    step = np.asarray(traj.obs)[:, 0]  # CountingEnv's obs[0] is the step within the episode
    at_start = step == 0
    assert at_start.sum() >= 6
    nonzero = np.abs(traj.prev_state).reshape(len(traj), -1).max(axis=1) > 0
    assert not nonzero[at_start].any() and nonzero[~at_start].all()
    # a row's stored state is the state the model reaches from the previous row's
    model = policy._collect_model
    with torch.no_grad():
        nxt = model({'obs': torch.as_tensor(traj.obs[:-1]), 'prev_state': torch.as_tensor(traj.prev_state[:-1])},
                    inference=True)['next_state'].numpy()
    same_episode = (~at_start[1:]) & (traj.env_id[1:] == traj.env_id[:-1])
    assert np.allclose(nxt[same_episode], traj.prev_state[1:][same_episode], atol=1e-5)


# --- sequence replay ---------------------------------------------------------------------
def test_sample_sequences_gives_consecutive_rows_of_one_env():
    buf = DequeBuffer(size=100)
    for call in range(3):  # two envs, 5 steps each per call, env-major as the collectors emit
        t = np.concatenate([np.arange(5) + 5 * call, np.arange(5) + 5 * call])
        buf.push(Batch(obs=t.astype(np.float32), env_id=np.repeat([0, 1], 5)))
    assert sample_sequences(buf, 4, 16) is None  # no env has 16 rows yet
    batch, index = sample_sequences(buf, 32, 6)
    assert batch.obs.shape == (32, 6) and index.shape == (32, 6)
    assert np.all(np.diff(batch.obs, axis=1) == 1)  # consecutive steps, in time order
    assert np.all(batch.env_id == batch.env_id[:, :1])


class _WorkerInferenceLikeEnv:
    """Just enough of the worker-actor protocol for StepCollector to pick that path."""
    env_num, closed = 2, False

    def step_batch(self, action):
        raise AssertionError('not reached')

    def collect_rollout(self, *args, **kwargs):
        raise AssertionError('not reached')

    def bind_actor(self, *args, **kwargs):
        raise AssertionError('not reached')

    def seed(self, seed, dynamic_seed=None):
        pass


def test_worker_inference_refuses_an_actor_that_does_not_return_the_transition_keys():
    mode = small_policy().collect_mode
    factory = mode.worker_actor()
    factory.transition_columns = {}  # an actor that would not record prev_state
    mode.worker_actor = lambda: factory
    with pytest.raises(ValueError, match='prev_state'):
        StepCollector(_collect_cfg(), mode, _WorkerInferenceLikeEnv())


@pytest.mark.parametrize('priority', [False, True])
def test_collect_nstep_push_fetch_learn_through_the_middlewares(priority):
    from ding.entry.pipeline import prioritized_replay
    from ding.framework.middleware import data_pusher, offpolicy_data_fetcher
    fns = [functools.partial(DingEnvWrapper, CountingEnv(terminate_at=5)) for _ in range(2)]
    env = BaseEnvManagerV2(fns)
    policy = small_policy(priority=priority, priority_IS_weight=priority)
    cfg = deep_merge(_collect_cfg(), dict(policy=dict(learn=dict(batch_size=4), priority=priority,
                                                      priority_IS_weight=priority,
                                                      other=dict(replay_buffer=dict()))))
    collector, nstep = StepCollector(cfg, policy.collect_mode, env), nstep_reward_enhancer(cfg)
    buf = DequeBuffer(size=1000)
    per = None
    if priority:  # as make_replay_buffer builds it for R2D2's priority=True
        per = prioritized_replay(buf, cfg)
        buf.use(per)
    push = data_pusher(cfg, buf)
    ctx = OnlineRLContext(collect_kwargs={'eps': 0.5})
    try:
        for _ in range(3):
            collector(ctx)
            nstep(ctx)
            push(ctx)
    finally:
        env.close()
    written = []
    update = buf.update
    buf.update = lambda index, data=None, meta=None: written.append((index, meta)) or update(index, data, meta)
    fetch = offpolicy_data_fetcher(cfg, buf)(ctx)
    next(fetch)
    data = ctx.train_data
    assert data.obs.shape == (4, 8, 2) and data.prev_state.shape == (4, 8, 2, H) and data.reward.shape == (4, 8, 2)
    assert np.all(data.env_id == data.env_id[:, :1])
    assert ('priority_IS' in data) == priority
    if priority:
        assert data.priority_IS.shape == (4, ) and np.all((data.priority_IS > 0) & (data.priority_IS <= 1))
    ctx.train_output = policy.learn_mode.forward(data)
    assert np.isfinite(ctx.train_output['total_loss'])
    next(fetch, None)  # the write-back step: each window's priority onto all of its rows
    if priority:
        out = ctx.train_output['priority']
        assert out.shape == (4, )
        (ids, meta), = written
        assert ids.shape == (32, ) and np.allclose(meta['priority'], np.repeat(out, 8))
        last_window = buf.slots_of(ids[-8:])[0]  # a row in two windows keeps the later one's priority
        assert np.allclose(per.priority[last_window], max(out[-1], 1e-6))
