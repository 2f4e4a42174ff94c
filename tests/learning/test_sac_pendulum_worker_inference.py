"""SAC solves Pendulum-v1 (eval mean >= -250) within 20k env steps with its collector's actor
living in the env worker (`env_manager.type='worker_inference'`): the spec's continuous
pipeline and `pendulum_sac_config`, only the collector's manager type swapped. The
evaluator stays serial (Pendulum steps are cheap; one IPC round trip each would dominate)."""
import copy
import time
from functools import partial

import pytest
import torch

from ding.config import compile_config
from ding.data import DequeBuffer
from ding.envs import BaseEnvManagerV2, create_env_manager, get_vec_env_setting
from ding.envs.env_manager.worker_inference import WorkerInferenceSampler
from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher, interaction_evaluator,
                                       termination_checker)
from ding.model import ContinuousQAC
from ding.policy import SACPolicy
from ding.utils import set_pkg_seed
from dizoo.classic_control.pendulum.config.pendulum_sac_config import create_config, main_config
from dizoo.common.offpolicy_pipeline import eval_recorder, first_reaching


def train_sac(exp_name: str, seed: int, max_env_step: int = 20000):
    """Returns (evaluation history, final ctx, the collector's weight-board version)."""
    torch.set_num_threads(1)
    cfg = copy.deepcopy(main_config)
    cfg.exp_name = exp_name
    create = copy.deepcopy(create_config)
    create.env_manager = dict(type='worker_inference')
    cfg = compile_config(cfg, create_cfg=create, auto=True, seed=seed, save_cfg=False)
    env_fn, collector_cfgs, evaluator_cfgs = get_vec_env_setting(cfg.env)
    collector_env = create_env_manager(cfg.env.manager, [partial(env_fn, c) for c in collector_cfgs])
    evaluator_env = BaseEnvManagerV2([partial(env_fn, c) for c in evaluator_cfgs])
    assert type(collector_env) is WorkerInferenceSampler
    set_pkg_seed(cfg.seed, use_cuda=False)
    policy = SACPolicy(cfg.policy, model=ContinuousQAC(**cfg.policy.model))
    buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
    history, start = [], [0.0]
    with collector_env, evaluator_env:
        with task.start(async_mode=False, ctx=OnlineRLContext()):
            task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
            task.use(eval_recorder(history, start))
            task.use(StepCollector(cfg, policy.collect_mode, collector_env,
                                   random_collect_size=cfg.policy.random_collect_size))
            task.use(data_pusher(cfg, buffer_))
            task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
            task.use(termination_checker(max_env_step=max_env_step))
            start[0] = time.perf_counter()
            task.run()
            ctx, version = task.ctx, collector_env.weights_version
    return history, ctx, version


def solve(seed: int, tmp_path):
    history, ctx, version = train_sac(str(tmp_path / f'sac_worker_{seed}'), seed)
    reached = first_reaching(history, -250)
    assert reached is not None, f'SAC seed {seed} with worker_inference never reached -250: {history}'
    assert reached['env_step'] <= 20000 and reached['train_iter'] > 0
    # the worker's actor followed the learner: new weights before every 1-step collect after the warm-up
    assert version // 2 - 1 >= ctx.env_step - main_config.policy.random_collect_size - 1
    return reached


@pytest.mark.slow  # ~15-30 s a seed; the default run covers this path with tests/envs/test_worker_inference_qac.py
@pytest.mark.parametrize('seed', [1000, 1001, 1002])  # held out: the SAC config was tuned on seeds 0-2
def test_sac_with_worker_inference_solves_pendulum(seed, tmp_path):
    solve(seed, tmp_path)
