"""dizoo/atari configs: all 20 (Pong, Breakout, Qbert, SpaceInvaders x dqn, c51, qrdqn,
rainbow, r2d2) compile with DI-engine's keys and the frame-once pixel replay; Pong DQN
collects a few steps through the n-step stage into that replay, which hands back exactly what
was pushed, at one frame per env step."""
import glob
import importlib
import os

import numpy as np
import pytest
from easydict import EasyDict

from ding.config import compile_config

GAMES = ('pong', 'breakout', 'qbert', 'spaceinvaders')
ALGOS = ('dqn', 'c51', 'qrdqn', 'rainbow', 'r2d2')
ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'dizoo', 'atari', 'config', 'serial')


def load(game: str, algo: str):
    mod = importlib.import_module(f'dizoo.atari.config.serial.{game}.{game}_{algo}_config')
    return EasyDict(mod.main_config), EasyDict(mod.create_config)


@pytest.mark.slow
def test_every_game_has_every_config_and_they_compile():
    found = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, '*', '*_config.py')))
    assert found == sorted([f'{g}_{a}_config.py' for g in GAMES for a in ALGOS]
                           + ['pong_ppo_config.py', 'pong_impala_config.py', 'pong_dqn_cpu_config.py'])
    for game in GAMES:
        for algo in ALGOS:
            main, create = load(game, algo)
            cfg = compile_config(main, create_cfg=create, auto=True, save_cfg=False)
            assert cfg.policy.type == algo and cfg.env.type == 'atari' and cfg.env.frame_stack == 4
            assert cfg.policy.other.replay_buffer.type == 'frame'
            assert list(cfg.policy.model.obs_shape) == [4, 84, 84]
            assert cfg.policy.model.action_shape == (4 if game == 'breakout' else 6)
    main, create = load('pong', 'dqn_cpu')  # the CPU-budget recipe: uint8 frames into the frame replay
    cfg = compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    assert cfg.policy.other.replay_buffer.type == 'frame' and cfg.env.scale is False and cfg.policy.nstep == 3


def test_pong_ppo_is_the_published_recipe_on_the_nature_cnn():
    """PPO's Atari values (Schulman et al. 2017; baselines' ppo2, CleanRL's ppo_atari.py), and a
    policy whose model sees frames through convs, not an MLP over flattened pixels."""
    import torch

    from ding.policy import PPOPolicy
    main, create = load('pong', 'ppo')
    cfg = compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    learn, collect = cfg.policy.learn, cfg.policy.collect
    assert (cfg.env.collector_env_num, collect.n_sample, learn.epoch_per_collect, learn.batch_size) == (8, 1024, 4, 256)
    assert (learn.learning_rate, learn.clip_ratio, learn.entropy_weight, learn.grad_clip_value) == (2.5e-4, 0.1, 0.01, 0.5)
    assert learn.lr_decay_iters == 10_000_000 // 1024 * 16  # linear to 0 over 10M env steps of 16 updates per collect
    policy = PPOPolicy(cfg.policy)
    convs = [m for m in policy._model.modules() if isinstance(m, torch.nn.Conv2d)]
    assert len(convs) == 3
    out = policy._model(torch.rand(2, 4, 84, 84), mode='compute_actor_critic')
    assert out['logit'].shape == (2, 6) and out['value'].shape == (2, )


@pytest.mark.slow
def test_pong_dqn_collects_into_the_frame_replay(tmp_path, monkeypatch):
    pytest.importorskip('ale_py')
    from ding.data.buffer.frame_buffer import FrameBuffer
    from ding.entry.pipeline import make_env_manager, make_policy, make_replay_buffer
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import StepCollector, data_pusher, eps_greedy_handler, nstep_reward_enhancer
    monkeypatch.chdir(tmp_path)
    main, create = load('pong', 'dqn')
    main.env.collector_env_num, main.env.evaluator_env_num = 2, 1
    main.policy.cuda, main.policy.collect.n_sample = False, 12
    main.policy.model.encoder_hidden_size_list = [8, 8, 16]  # DI-engine's [128, 128, 512] is slow to build
    main.policy.other.replay_buffer.replay_buffer_size = 100
    create.env_manager.type = 'base'
    cfg = compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    collector_env = make_env_manager(cfg, collect=True)
    policy = make_policy(cfg, enable_field=['collect'])
    buffer_ = make_replay_buffer(cfg)
    assert isinstance(buffer_, FrameBuffer)
    pushed = []
    with task.start(ctx=OnlineRLContext()):
        task.use(eps_greedy_handler(cfg))
        task.use(StepCollector(cfg, policy.collect_mode, collector_env))
        task.use(nstep_reward_enhancer(cfg))  # next_obs 3 steps on, as the pipeline pushes it
        task.use(lambda ctx: pushed.append(ctx.trajectories.copy()))
        task.use(data_pusher(cfg, buffer_))
        task.run(max_step=3)
    collector_env.close()
    rows = buffer_.count()
    assert 36 - 2 * 2 <= rows <= 36  # the n-step stage holds back each env's last 2 steps
    sampled = buffer_.sample(indices=np.arange(rows)).batch
    for key in ('obs', 'next_obs', 'action', 'env_id', 'nstep'):
        np.testing.assert_array_equal(sampled[key], np.concatenate([np.asarray(b[key]) for b in pushed]))
    assert buffer_._store.next_id <= 36 + 2  # one frame per env step, plus each env's reset frame


def _pong_dqn_weights_after_updates(scale: bool, tmp_path, monkeypatch):
    """Pong DQN, seed 0: 3 collection steps of 2 envs into the frame replay, then 3 updates on
    its first 16 rows; (that batch, the model's weights)."""
    import torch

    from ding.entry.pipeline import make_env_manager, make_policy, make_replay_buffer
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import StepCollector, data_pusher, eps_greedy_handler, nstep_reward_enhancer
    monkeypatch.chdir(tmp_path)
    main, create = load('pong', 'dqn')
    main.env.collector_env_num, main.env.evaluator_env_num, main.env.scale = 2, 1, scale
    main.policy.cuda, main.policy.collect.n_sample = False, 12
    main.policy.model.encoder_hidden_size_list = [8, 8, 16]
    main.policy.other.replay_buffer.replay_buffer_size = 100
    create.env_manager.type = 'base'
    cfg = compile_config(main, create_cfg=create, auto=True, save_cfg=False, seed=0)
    torch.manual_seed(0)
    env = make_env_manager(cfg, collect=True)
    policy = make_policy(cfg, enable_field=['collect', 'learn'])
    buffer_ = make_replay_buffer(cfg)
    with task.start(ctx=OnlineRLContext()):
        task.use(eps_greedy_handler(cfg))
        task.use(StepCollector(cfg, policy.collect_mode, env))
        task.use(nstep_reward_enhancer(cfg))
        task.use(data_pusher(cfg, buffer_))
        task.run(max_step=3)
    env.close()
    batch = buffer_.sample(indices=np.arange(16)).batch
    for _ in range(3):
        policy.learn_mode.forward(batch)
    return batch, policy._model.state_dict()


@pytest.mark.slow
def test_uint8_frames_train_the_same_weights_as_scaled_float_frames(tmp_path, monkeypatch):
    """`env.scale=False` keeps Atari frames uint8 through the env manager and the replay, and
    the conv encoder divides them by 255: the same learning, bit for bit, at a quarter of the bytes."""
    pytest.importorskip('ale_py')
    import torch
    floats, w_float = _pong_dqn_weights_after_updates(True, tmp_path, monkeypatch)
    pixels, w_uint8 = _pong_dqn_weights_after_updates(False, tmp_path, monkeypatch)
    assert floats['obs'].dtype == np.float32 and pixels['obs'].dtype == np.uint8
    np.testing.assert_array_equal(pixels['obs'] / np.float32(255), floats['obs'])
    for name, value in w_float.items():
        assert torch.equal(value, w_uint8[name]), name


@pytest.mark.slow
def test_pong_impala_trains_on_windows_of_uint8_frames_from_the_frame_replay(tmp_path, monkeypatch):
    """DI-engine's Pong IMPALA config runs through `ding -m serial`'s pipeline, its windows
    sampled from the frame replay; here with small sizes and uint8 frames."""
    pytest.importorskip('ale_py')
    from ding.entry.pipeline import RunOptions
    from ding.entry.train import start_run
    monkeypatch.chdir(tmp_path)
    main, create = load('pong', 'impala')
    assert (main.policy.unroll_len, main.policy.learn.batch_size, list(main.policy.model.encoder_hidden_size_list)) \
        == (64, 128, [64, 128, 256])  # DI-engine 0.5.3's
    main.env.update(collector_env_num=2, evaluator_env_num=1, n_evaluator_episode=1, scale=False)
    main.policy.update(cuda=False, unroll_len=8)
    main.policy.collect.n_sample, main.policy.learn.batch_size = 4, 4
    main.policy.model.update(encoder_hidden_size_list=[8, 8, 16], critic_head_hidden_size=16,
                             actor_head_hidden_size=16)
    main.policy.eval.evaluator.eval_freq = 10_000
    create.env_manager.type = 'base'
    cfg, ctx = start_run(main, create, {'algo': 'impala', 'env': 'PongNoFrameskip-v4'}, 0,
                         RunOptions(max_env_step=160, progress=False), str(tmp_path / 'run'))
    assert ctx.env_step >= 160 and ctx.train_iter >= 4  # 2 updates per collect of 4 windows of 8 steps
    assert np.isfinite(ctx.train_output[-1]['total_loss'] if isinstance(ctx.train_output, list)
                       else ctx.train_output['total_loss'])
