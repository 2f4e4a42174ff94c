"""Recurrent QMIX / VDN (ding/model/qmix_recurrent.py, ding/policy/qmix_recurrent.py): sequence
shapes, the GRU state carried per env and agent and reset at episode ends, a learning step on
replayed windows, DI-engine's ptz configs building the policy, and learning a task that needs memory."""
import functools

import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.config import compile_config
from ding.data.batch import Batch
from ding.model.qmix_recurrent import RecurrentQMix
from ding.policy import QMIXPolicy, VDNPolicy
from ding.policy.qmix_recurrent import RecurrentQMIXPolicy, RecurrentVDNPolicy

A, OBS, G, N, H = 2, 5, 4, 3, 8


def seq_obs(t, b):
    mask = torch.ones(t, b, A, N)
    mask[..., 0, 2] = 0  # agent 0 may not take action 2
    return {'agent_state': torch.randn(t, b, A, OBS), 'global_state': torch.randn(t, b, G), 'action_mask': mask}


def model(mixer=True):
    torch.manual_seed(0)
    return RecurrentQMix(A, OBS, G, N, hidden_size_list=[16, H], mixer=mixer)


def test_sequence_shapes_match_single_steps_and_reset_restarts_the_state():
    net, obs, action = model(), seq_obs(5, 3), torch.randint(0, 2, (5, 3, A))
    out = net({'obs': obs, 'prev_state': None, 'action': action}, single_step=False)
    assert out['logit'].shape == (5, 3, A, N) and out['total_q'].shape == (5, 3)
    assert out['hidden_state'].shape == (5, 3, A, H) and out['next_state'].shape == (3, A, H)
    assert (out['logit'][..., 0, 2] < -1e7).all()  # masked
    state = net.zero_state(3)  # the same sequence one step at a time
    for t in range(5):
        step = net({'obs': {k: v[t] for k, v in obs.items()}, 'prev_state': state, 'action': action[t]})
        assert torch.allclose(step['logit'], out['logit'][t], atol=1e-5)
        assert torch.allclose(step['total_q'], out['total_q'][t], atol=1e-5)
        state = step['next_state']
    # a reset before step 3 of sample 1 zeroes only that sample's state: it restarts from scratch there
    reset = torch.zeros(5, 3, dtype=torch.bool)
    reset[3, 1] = True
    again = net({'obs': obs, 'prev_state': None, 'reset': reset}, single_step=False)
    fresh = net({'obs': {k: v[3:] for k, v in obs.items()}, 'prev_state': None}, single_step=False)
    assert torch.allclose(again['logit'][3:, 1], fresh['logit'][:, 1], atol=1e-5)
    assert torch.allclose(again['logit'][:, 0], out['logit'][:, 0], atol=1e-5)
    assert not torch.allclose(again['logit'][3:, 1], out['logit'][3:, 1], atol=1e-3)
    vdn = model(mixer=False)({'obs': obs, 'action': action}, single_step=False)
    assert torch.allclose(vdn['total_q'], vdn['agent_q_act'].sum(-1))
    with pytest.raises(ValueError, match="lstm_type must be 'gru'"):
        RecurrentQMix(A, OBS, G, N, [H], lstm_type='normal')


def policy_cfg(**collect):
    return EasyDict(dict(model=dict(agent_num=A, obs_shape=OBS, global_obs_shape=G, action_shape=N,
                                    hidden_size_list=[16, H]),
                         learn=dict(batch_size=4, double_q=True, target_update_theta=0.5),
                         collect=dict(unroll_len=6, **collect)))


def test_unroll_len_picks_the_variant():
    assert type(QMIXPolicy(policy_cfg())) is RecurrentQMIXPolicy
    assert type(VDNPolicy(policy_cfg())) is RecurrentVDNPolicy
    assert type(QMIXPolicy(policy_cfg())._model).__name__ == 'RecurrentQMix'
    cfg = policy_cfg()
    cfg.collect.unroll_len = 1
    assert type(QMIXPolicy(cfg)) is QMIXPolicy  # the feed-forward policy
    cfg.collect.unroll_len, cfg.burnin_step = 3, 2
    with pytest.raises(ValueError, match='unroll_len >= burnin_step \\+ 2'):
        QMIXPolicy(cfg)


def test_collect_keeps_a_state_per_env_and_agent_and_resets_it_at_episode_ends():
    policy = QMIXPolicy(policy_cfg(env_num=3))
    obs = Batch.wrap({k: v[0] for k, v in seq_obs(1, 3).items()})
    first = policy.collect_mode.forward_batch(obs, eps=0.0)
    assert first['prev_state'].shape == (3, A, H) and not first['prev_state'].any()
    assert first['action'].shape == (3, A) and (first['action'][:, 0] != 2).all()
    second = policy.collect_mode.forward_batch(obs, eps=0.0)
    assert (np.abs(second['prev_state']).sum(axis=(1, 2)) > 0).all()  # every env carried its agents' states
    policy.collect_mode.reset([1])  # env 1's episode ended
    third = policy.collect_mode.forward_batch(obs, eps=0.0)
    assert not third['prev_state'][1].any()
    assert (np.abs(third['prev_state'][[0, 2]]).sum(axis=(1, 2)) > 0).all()
    # the envs' rows are independent: env 0 acting alone continues its own state
    alone = policy.collect_mode.forward_batch(Batch.wrap({k: v[:1] for k, v in obs.items()}), eps=0.0, env_id=[0])
    assert np.abs(alone['prev_state'][0]).sum() > 0 and not np.allclose(alone['prev_state'][0], third['prev_state'][0])


def test_di_engine_env_id_form_takes_dict_observations():
    policy = QMIXPolicy(policy_cfg(env_num=3))
    step = {k: v[0].numpy() for k, v in seq_obs(1, 3).items()}
    out = policy.collect_mode.forward({i: {k: v[i] for k, v in step.items()} for i in (0, 2)}, eps=0.0)
    assert sorted(out) == [0, 2] and out[2]['action'].shape == (A, ) and out[0]['prev_state'].shape == (A, H)
    again = policy.collect_mode.forward({2: {k: v[2] for k, v in step.items()}}, eps=0.0)
    assert np.abs(again[2]['prev_state']).sum() > 0  # env 2 kept its own state from the call before


def sequence_batch(b=4, t=6):
    """Replayed windows [B, T, ...] as the fetcher gives them; window 0 has an episode end at step 2."""
    obs, next_obs = seq_obs(t, b), seq_obs(t, b)
    tb = lambda v: v.transpose(0, 1).numpy()  # noqa: E731
    done = np.zeros((b, t), dtype=bool)
    done[0, 2] = True
    return Batch({
        'obs': {k: tb(v) for k, v in obs.items()}, 'next_obs': {k: tb(v) for k, v in next_obs.items()},
        'action': np.random.default_rng(0).integers(0, 2, (b, t, A)), 'reward': np.ones((b, t), np.float32),
        'done': done, 'truncated': np.zeros((b, t), dtype=bool),
        'prev_state': np.random.default_rng(1).normal(size=(b, t, A, H)).astype(np.float32),
    })


@pytest.mark.parametrize('burnin', [0, 2])
def test_a_learning_step_on_windows_is_finite_and_trains_the_gru(burnin):
    cfg = policy_cfg()
    cfg.burnin_step = burnin
    policy = QMIXPolicy(cfg)
    data = sequence_batch().to_torch()
    reward = data.reward.float()
    td = policy._td_loss(data, reward, data.done.float(), None)
    assert torch.isfinite(td.loss) and td.priority.shape == (4, )
    td.loss.backward()
    rnn_grad = sum(p.grad.abs().sum() for p in policy._model.rnn.parameters())
    encoder_grad = sum(p.grad.abs().sum() for p in policy._model.encoder.parameters())
    assert rnn_grad > 0 and encoder_grad > 0
    before = [p.detach().clone() for p in policy._model.rnn.parameters()]
    out = policy.learn_mode.forward(sequence_batch())
    assert np.isfinite(out['total_loss'])
    assert any(not torch.equal(b, p) for b, p in zip(before, policy._model.rnn.parameters()))
    with pytest.raises(ValueError, match='sequences'):  # single transitions: not windows
        policy.learn_mode.forward(sequence_batch().apply(lambda v: v[:, 0]))


@pytest.mark.slow  # reads DI-engine's wheel
@pytest.mark.parametrize('source', ['di_engine', 'dizoo'])
@pytest.mark.parametrize('name', ['qmix', 'vdn'])
def test_ptz_simple_spread_configs_build_the_recurrent_policy(name, source):
    """DI-engine 0.5.3's own ptz simple_spread qmix / vdn configs, and ours in dizoo/petting_zoo,
    build and act with the GRU policy."""
    import importlib
    from tests.config.test_di_engine_dizoo_configs import load
    from dizoo.petting_zoo.envs import PettingZooEnv
    if source == 'di_engine':
        main, create = load(f'petting_zoo/config/ptz_simple_spread_{name}_config.py')
    else:
        module = importlib.import_module(f'dizoo.petting_zoo.config.ptz_simple_spread_{name}_config')
        main, create = module.main_config, module.create_config
    cfg = compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    assert cfg.policy.collect.unroll_len == 16 and cfg.policy.model.hidden_size_list == [128, 128, 64]
    policy = QMIXPolicy(cfg.policy)
    assert type(policy) is RecurrentQMIXPolicy and policy._model.mixer == ('qmix' if name == 'qmix' else 'vdn')
    env = PettingZooEnv(cfg.env)
    env.seed(0)
    obs = Batch.from_rows([env.reset()])
    out = policy.collect_mode.forward_batch(obs, eps=0.5, env_id=[3])
    assert out['action'].shape == (1, cfg.policy.model.agent_num)
    assert out['prev_state'].shape == (1, cfg.policy.model.agent_num, 64)
    env.close()


RECALL = EasyDict(dict(
    exp_name='ma_recall_qmix',
    env=dict(collector_env_num=4, evaluator_env_num=4, n_evaluator_episode=8, stop_value=8),
    policy=dict(
        cuda=False,
        model=dict(agent_num=2, obs_shape=5, global_obs_shape=4, action_shape=3, hidden_size_list=[32]),
        learn=dict(update_per_collect=4, batch_size=32, learning_rate=0.001, target_update_theta=0.05,
                   discount_factor=0.9),
        collect=dict(n_sample=8, unroll_len=4, env_num=4),
        other=dict(eps=dict(type='exp', start=1.0, end=0.05, decay=1500), replay_buffer=dict(
            replay_buffer_size=2000)),
    ),
))
RECALL_CREATE = EasyDict(dict(env=dict(type='recall', import_names=[]), env_manager=dict(type='base'),
                              policy=dict(type='qmix')))


def learn_recall(unroll_len, max_step, seed=0):
    """QMIX through the off-policy pipeline on RecallEnv: greedy return before and after."""
    from ding.data import DequeBuffer
    from ding.envs import BaseEnvManagerV2
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler
    from ding.framework.middleware.evaluator import run_episodes
    from ding.utils import set_pkg_seed
    from tests.multiagent.ma_envs import recall_env
    user = EasyDict(RECALL.copy())
    user.policy.collect.unroll_len = unroll_len
    user.policy.collect.n_sample = 32 // unroll_len  # 32 env steps per collect either way
    cfg = compile_config(user, create_cfg=RECALL_CREATE, seed=seed, save_cfg=False)
    make = functools.partial(recall_env, None, length=4)
    set_pkg_seed(seed, use_cuda=False)
    policy = QMIXPolicy(cfg.policy)
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        collector = BaseEnvManagerV2([make] * 4, cfg.env.manager)
        evaluator = BaseEnvManagerV2([make] * 4, cfg.env.manager)
        before = np.mean(run_episodes(policy.eval_mode, evaluator, 8, 100))
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
        task.use(eps_greedy_handler(cfg))
        task.use(StepCollector(cfg, policy.collect_mode, collector))
        task.use(data_pusher(cfg, buffer_))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_, log_freq=0))
        task.run(max_step=max_step)
        after = np.mean(run_episodes(policy.eval_mode, evaluator, 8, 100))
        collector.close()
        evaluator.close()
    return type(policy), before, after


@pytest.mark.slow
def test_recurrent_qmix_learns_to_recall_the_cue_where_feed_forward_cannot():
    """2 agents x 4 steps, the cue shown at the first step only: remembering it scores 8, while
    guessing after the first step gets 2 + 6 / 3 = 4 on average. Same pipeline and env steps (3.2k)."""
    torch.set_num_threads(1)
    cls, before, after = learn_recall(unroll_len=4, max_step=100)
    assert cls is RecurrentQMIXPolicy
    assert before <= 5 and after >= 7.5, (before, after)
    cls, _, feed_forward = learn_recall(unroll_len=1, max_step=100)
    assert cls is QMIXPolicy and feed_forward <= 5.5, feed_forward
