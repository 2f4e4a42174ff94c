"""Acceptance: an async-mode SAC run, checkpointed continuously (CkptSaver every train
iteration, and a thread saving the learner state as fast as it can while the learner
updates), produces no torn checkpoint. For every optimizer step the test records a
fingerprint of the weights it produced; each checkpoint, loaded back from its file, must
hold the weights of exactly the optimizer step its Adam state counts; `eval.pth.tar` the
weights of one whole optimizer step (those the evaluator played). The collector's envs step in
subprocess workers, so the steps overlap (with envs in this process they would run as in sync
mode: async_pipeline.why_sync)."""
import copy
import glob
import hashlib
import os
import threading
from functools import partial

import pytest
import torch

from ding.config import compile_config
from ding.data import DequeBuffer
from ding.envs import BaseEnvManagerV2, SubprocessEnvManagerV2, get_vec_env_setting
from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (CkptSaver, OffPolicyLearner, StepCollector, data_pusher,
                                       interaction_evaluator, termination_checker)
from ding.policy import SACPolicy
from ding.utils import set_pkg_seed
from dizoo.classic_control.pendulum.config.pendulum_sac_config import create_config, main_config


def fingerprint(model_state, log_alpha=None) -> str:
    digest = hashlib.sha256()
    for key in sorted(model_state):
        digest.update(key.encode())
        digest.update(model_state[key].detach().cpu().contiguous().numpy().tobytes())
    if log_alpha is not None:
        digest.update(log_alpha.detach().cpu().numpy().tobytes())
    return digest.hexdigest()


def adam_step(optimizer_state) -> int:
    """The optimizer step a checkpoint counts (0 before the first); every parameter must
    count the same one."""
    steps = {int(s['step']) for s in optimizer_state['state'].values()} or {0}
    assert len(steps) == 1, f'parameters at different optimizer steps: {sorted(steps)}'
    return steps.pop()


def record_fingerprints(policy) -> tuple:
    """({optimizer step: fingerprint of the weights after it}, {fingerprints of the model
    alone}), filled by a post-step hook (it runs inside the update, under the weights lock)."""
    by_step = {0: fingerprint(policy._model.state_dict(), policy._log_alpha)}
    models = {fingerprint(policy._model.state_dict())}

    def after_step(optimizer, args, kwargs) -> None:
        by_step[adam_step(optimizer.state_dict())] = fingerprint(policy._model.state_dict(), policy._log_alpha)
        models.add(fingerprint(policy._model.state_dict()))

    policy._optimizer.register_step_post_hook(after_step)
    return by_step, models


def save_continuously(policy, directory: str, stop: threading.Event) -> None:
    n = 0
    while not stop.is_set():
        torch.save(policy.learn_mode.state_dict(), os.path.join(directory, f'hammer_{n}.pth.tar'))
        n += 1
        stop.wait(0.002)  # leave the learner most of the second core


@pytest.mark.slow  # kept out of `make test` (under 2 min); CI runs it with the learning tests
def test_async_sac_checkpoints_are_never_torn(tmp_path):
    torch.set_num_threads(1)
    cfg = copy.deepcopy(main_config)
    cfg.exp_name = str(tmp_path / 'run')
    cfg.policy.random_collect_size = 256
    cfg.policy.collect.n_sample = 8
    cfg.policy.learn.update_per_collect = 8
    cfg.env.n_evaluator_episode = cfg.env.evaluator_env_num = 1
    cfg.policy.eval.evaluator.eval_freq = 200
    cfg = compile_config(cfg, create_cfg=copy.deepcopy(create_config), auto=True, seed=0, save_cfg=False)
    env_fn, collector_cfgs, evaluator_cfgs = get_vec_env_setting(cfg.env)
    collector_env = SubprocessEnvManagerV2([partial(env_fn, c) for c in collector_cfgs])
    evaluator_env = BaseEnvManagerV2([partial(env_fn, c) for c in evaluator_cfgs])
    set_pkg_seed(cfg.seed, use_cuda=False)
    policy = SACPolicy(cfg.policy)
    buffer_ = DequeBuffer(size=10000)
    by_step, models = record_fingerprints(policy)
    hammer_dir = tmp_path / 'hammer'
    hammer_dir.mkdir()
    stop = threading.Event()
    hammer = threading.Thread(target=save_continuously, args=(policy, str(hammer_dir), stop), daemon=True)
    with collector_env, evaluator_env:
        with task.start(async_mode=True, ctx=OnlineRLContext()):
            task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
            task.use(StepCollector(cfg, policy.collect_mode, collector_env,
                                   random_collect_size=cfg.policy.random_collect_size))
            task.use(data_pusher(cfg, buffer_))
            task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
            task.use(CkptSaver(policy, cfg.exp_name, train_freq=1))
            task.use(termination_checker(max_env_step=900))
            hammer.start()
            try:
                task.run()
            finally:
                stop.set()
                hammer.join()
    files = glob.glob(str(hammer_dir / '*.pth.tar')) + glob.glob(os.path.join(cfg.exp_name, 'ckpt', 'iteration_*'))
    steps = set()
    for path in files:
        state = torch.load(path, weights_only=False)
        step = adam_step(state['optimizer'])
        assert fingerprint(state['model'], state['log_alpha']) == by_step[step], f'{path}: torn at step {step}'
        steps.add(step)
    # eval.pth.tar: the evaluated weights, with the learner state at them unless the learner moved on
    best = torch.load(os.path.join(cfg.exp_name, 'ckpt', 'eval.pth.tar'), weights_only=False)
    if 'optimizer' in best:
        assert fingerprint(best['model'], best['log_alpha']) == by_step[adam_step(best['optimizer'])]
    assert fingerprint(best['model']) in models
    print(f'{len(by_step)} optimizer steps, {len(files)} checkpoints at {len(steps)} different steps')
    assert len(by_step) > 300 and len(steps) > 50  # many updates, checkpoints taken all along
