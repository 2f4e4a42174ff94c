"""IMPALAPolicy: DI-engine's config keys, the learn step on trajectories [B, T] (shapes, finite
losses, parameters move), collect / eval outputs, and the replay data path (windows of one env
sampled from the buffer) in a short CartPole pipeline."""
import ast

import numpy as np
import pytest
import torch

from ding.data.batch import Batch
from ding.policy.impala import IMPALAPolicy
from tests.di_engine_wheel import di_engine_file

CARTPOLE = dict(model=dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[16, 16]), unroll_len=5,
                learn=dict(batch_size=3))


def di_engine_policy_config() -> dict:
    tree = ast.parse(di_engine_file('ding/policy/impala.py'))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == 'IMPALAPolicy')
    node = next(n for n in cls.body if isinstance(n, ast.Assign) and n.targets[0].id == 'config')
    return eval(compile(ast.Expression(node.value), 'impala', 'eval'), {'dict': dict})


def flatten(d: dict, prefix: str = '') -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict) and v:
            out.update(flatten(v, f'{prefix}{k}.'))
        else:
            out[f'{prefix}{k}'] = v
    return out


def test_config_has_di_engine_keys_and_defaults():
    ours = flatten(IMPALAPolicy.default_config())
    theirs = flatten(di_engine_policy_config())
    theirs = {k: v for k, v in theirs.items() if v != {}}  # DI-engine's empty collect / eval sections
    assert {k: ours.get(k, 'MISSING') for k in theirs} == theirs


def test_cartpole_config_is_di_engines_and_compiles_unroll_len_into_collect():
    from ding.config import compile_config
    from dizoo.classic_control.cartpole.config.cartpole_impala_config import create_config, main_config
    namespace = {}
    exec(di_engine_file('dizoo/classic_control/cartpole/config/cartpole_impala_config.py'), namespace)
    assert flatten(main_config) == flatten(namespace['main_config'])
    assert create_config.policy.type == 'impala'
    cfg = compile_config(main_config, create_cfg=create_config, auto=True, save_cfg=False)
    assert cfg.policy.collect.unroll_len == cfg.policy.unroll_len == 8  # the fetcher samples 8-step windows


def sequences(policy: IMPALAPolicy, B: int = 3, T: int = 5, seed: int = 0) -> Batch:
    """A batch of trajectories [B, T] as the sequence fetcher gives it, with episode ends inside."""
    rng = np.random.default_rng(seed)
    obs = rng.normal(size=(B, T + 1, 4)).astype(np.float32)
    out = policy.collect_mode.forward_batch(obs[:, :-1].reshape(B * T, 4))
    done = np.zeros((B, T), dtype=bool)
    truncated = np.zeros((B, T), dtype=bool)
    done[0, 2], truncated[1, 3] = True, True
    return Batch(dict(obs=obs[:, :-1], next_obs=obs[:, 1:], action=out['action'].reshape(B, T),
                      logit=out['logit'].reshape(B, T, 2), reward=np.ones((B, T), dtype=np.float32), done=done,
                      truncated=truncated, env_id=np.repeat(np.arange(B), T).reshape(B, T)))


def test_learn_step_on_trajectories():
    torch.manual_seed(0)
    policy = IMPALAPolicy(CARTPOLE)
    batch = sequences(policy)
    before = [p.detach().clone() for p in policy._model.parameters()]
    out = policy.learn_mode.forward(batch)
    assert set(policy.learn_mode.monitor_vars()) <= set(out)
    assert all(np.isfinite(v) for v in out.values())
    # the behaviour logits are the policy's own: every importance ratio is 1 before the update
    assert out['rho_mean'] == pytest.approx(1.0, abs=1e-5)
    assert any(not torch.equal(a, b) for a, b in zip(before, policy._model.parameters()))
    second = policy.learn_mode.forward(batch)
    assert second['rho_mean'] != pytest.approx(1.0, abs=1e-7)  # now the learner has moved from the data


def test_learn_refuses_flat_transitions_and_missing_logit():
    policy = IMPALAPolicy(CARTPOLE)
    batch = sequences(policy)
    flat = batch.apply(lambda v: v.reshape((-1, ) + v.shape[2:]))
    with pytest.raises(ValueError, match='unroll_len'):
        policy.learn_mode.forward(flat)
    with pytest.raises(KeyError, match='logit'):
        policy.learn_mode.forward(Batch({k: batch[k] for k in batch.keys() if k != 'logit'}))


def test_continuous_learn_step_and_acting():
    cfg = dict(action_space='continuous', model=dict(obs_shape=3, action_shape=2, encoder_hidden_size_list=[16]),
               learn=dict(grad_clip_type='clip_norm', clip_value=1.0, optim='rmsprop'))
    policy = IMPALAPolicy(cfg)
    assert policy.collect_mode.transition_keys == ('logit_mu', 'logit_sigma')
    B, T = 2, 4
    obs = np.random.randn(B * T, 3).astype(np.float32)
    out = policy.collect_mode.forward_batch(obs)
    assert out['action'].shape == (B * T, 2) and out['logit_sigma'].shape == (B * T, 2)
    batch = Batch({k: v.reshape((B, T) + v.shape[1:]) for k, v in dict(
        out, obs=obs, next_obs=obs, reward=np.zeros(B * T, np.float32), done=np.zeros(B * T, bool)).items()})
    result = policy.learn_mode.forward(batch)
    assert np.isfinite(result['total_loss'])
    assert policy.eval_mode.forward_batch(obs)['action'].shape == (B * T, 2)


def test_collect_eval_and_state_dict():
    policy = IMPALAPolicy(CARTPOLE)
    obs = np.random.randn(6, 4).astype(np.float32)
    out = policy.collect_mode.forward_batch(obs)
    assert out['action'].shape == (6, ) and out['logit'].shape == (6, 2)
    assert policy.collect_mode.transition_keys == ('logit', )
    greedy = policy.eval_mode.forward_batch(obs)['action']
    assert np.array_equal(greedy, policy.eval_mode.forward_batch(obs)['action'])
    policy.learn_mode.forward(sequences(policy))
    state = policy.learn_mode.state_dict()
    other = IMPALAPolicy(CARTPOLE)
    other.learn_mode.load_state_dict(state)
    for mode, key in (('eval_mode', 'action'), ('collect_mode', 'logit')):
        ours, theirs = getattr(policy, mode).forward_batch(obs), getattr(other, mode).forward_batch(obs)
        assert np.array_equal(ours[key], theirs[key])
    assert other._optimizer.state_dict()['state'].keys() == policy._optimizer.state_dict()['state'].keys()


def test_bad_config_values_fail_clearly():
    with pytest.raises(ValueError, match='optim'):
        IMPALAPolicy(dict(CARTPOLE, learn=dict(optim='sgd')))
    with pytest.raises(ValueError, match='priority'):
        IMPALAPolicy(dict(CARTPOLE, priority_IS_weight=True))


def test_short_cartpole_pipeline_learns_from_replayed_windows(tmp_path):
    """StepCollector -> data_pusher(group_by_env) -> OffPolicyLearner: the learner gets [B, T] windows."""
    import gymnasium as gym
    from ding.config import compile_config
    from ding.data import DequeBuffer
    from ding.envs import BaseEnvManagerV2, DingEnvWrapper
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import OffPolicyLearner, StepCollector, data_pusher
    from dizoo.classic_control.cartpole.config.cartpole_impala_config import create_config, main_config
    main = dict(main_config, exp_name=str(tmp_path / 'impala'))
    cfg = compile_config(main, create_cfg=create_config, auto=True, save_cfg=False)
    seen = []
    with task.start(ctx=OnlineRLContext()):
        env = BaseEnvManagerV2([lambda: DingEnvWrapper(gym.make('CartPole-v0')) for _ in range(4)], cfg.env.manager)
        policy = IMPALAPolicy(cfg.policy)
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size,
                              sliced=cfg.policy.other.replay_buffer.sliced)
        task.use(StepCollector(cfg, policy.collect_mode, env))
        task.use(data_pusher(cfg, buffer_, group_by_env=True))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
        task.use(lambda ctx: seen.append((ctx.train_data['action'].shape, ctx.train_output)))
        task.run(max_step=3)
        env.close()
    assert all(shape == (16, 8) for shape, _ in seen)  # batch_size trajectories of unroll_len steps
    outputs = [o for _, out in seen for o in out]
    assert len(outputs) == 3 * 4 and all(np.isfinite(o['total_loss']) for o in outputs)


def test_di_engine_impala_example_imports_and_builds_its_parts():
    """DI-engine's ding/example/impala.py: its imports resolve here and its config builds the
    model, buffer and policy as the example does (running it takes ~35 minutes, see
    tests/policy/test_impala_learning.py)."""
    from ding.config import compile_config
    source = di_engine_file('ding/example/impala.py').replace('import gym\n', 'import gymnasium as gym\n', 1)
    imports = [n for n in ast.parse(source).body if isinstance(n, (ast.Import, ast.ImportFrom))]
    namespace = {}
    exec(compile(ast.Module(body=imports, type_ignores=[]), 'impala_example', 'exec'), namespace)
    cfg = compile_config(namespace['main_config'], create_cfg=namespace['create_config'], auto=True, save_cfg=False)
    assert cfg.policy.collect.unroll_len == 32 and cfg.policy.other.replay_buffer.sliced
    buffer_ = namespace['DequeBuffer'](size=cfg.policy.other.replay_buffer.replay_buffer_size,
                                       sliced=cfg.policy.other.replay_buffer.sliced)
    policy = namespace['IMPALAPolicy'](cfg.policy, model=namespace['VAC'](**cfg.policy.model))
    assert buffer_.sliced and policy.collect_mode.transition_keys == ('logit', )
