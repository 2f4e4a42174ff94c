"""DI-engine's learner hooks, policy.load_path and env.replay_path in ding's entries."""
import copy
import logging

import torch
from easydict import EasyDict

from ding.config import compile_config
from ding.entry import learner_hooks
from ding.entry.pipeline import make_policy
from ding.entry.serial import eval_target
from dizoo.classic_control.cartpole.config.cartpole_dqn_config import create_config, main_config


def compiled(**hook):
    main = EasyDict(copy.deepcopy(main_config))
    main.policy.learn.learner = dict(hook=hook)
    return compile_config(main, create_cfg=create_config, auto=True, save_cfg=False)


def test_hook_frequencies_map_to_the_pipeline_ones():
    cfg = compiled(save_ckpt_after_iter=50, log_show_after_iter=7)
    assert (learner_hooks.ckpt_train_freq(cfg, 1000), learner_hooks.log_train_freq(cfg, 100)) == (50, 7)
    plain = compiled()
    assert (learner_hooks.ckpt_train_freq(plain, 1000), learner_hooks.log_train_freq(plain, 100)) == (1000, 100)


def test_load_ckpt_before_run_loads_the_weights(tmp_path):
    source = make_policy(compiled())
    path = tmp_path / 'iteration_100.pth.tar'
    torch.save(source.learn_mode.state_dict(), path)
    cfg = compiled(load_ckpt_before_run=str(path))
    torch.manual_seed(123)  # a different initialisation
    target = make_policy(cfg)
    assert learner_hooks.load_before_run(cfg, target, resume=False) == str(path)
    for a, b in zip(source.learn_mode.state_dict()['model'].values(), target.learn_mode.state_dict()['model'].values()):
        assert torch.equal(a, b)
    assert learner_hooks.load_before_run(cfg, target, resume=True) is None  # a resume keeps its run state


def test_eval_target_uses_load_path_and_replay_path(tmp_path, caplog):
    ckpt = tmp_path / 'best.pth.tar'
    ckpt.write_bytes(b'x')
    main = {'policy': {'load_path': str(ckpt)}, 'env': {'replay_path': str(tmp_path / 'video')}}
    assert eval_target(main, None, 'run') == (str(ckpt), str(tmp_path / 'video' / 'eval.gif'))
    assert eval_target(main, 'other.pth.tar', 'run')[0] == 'other.pth.tar'  # --ckpt wins
    with caplog.at_level(logging.WARNING, logger='ding.entry'):
        path, render = eval_target({'policy': {'load_path': str(tmp_path / 'missing.pth.tar')}}, None, 'run')
    assert (path, render) == ('run', None) and 'does not exist' in caplog.text


def test_our_ppo_offpolicy_config_carries_di_engine_hooks():
    from dizoo.classic_control.cartpole.config import cartpole_ppo_offpolicy_config as c
    cfg = compile_config(c.main_config, create_cfg=c.create_config, auto=True, save_cfg=False)
    assert cfg.policy.type == 'ppo_offpolicy' and learner_hooks.ckpt_train_freq(cfg, 1) == 1000
