"""DQN on CartPole-v0 reaches 195 with each process-based env manager named in the
create_config, the managers built from the config as DI-engine's serial entries build them:
- 'subprocess' with the pipeline in async_mode (collection of step k+1 overlapping training
  of step k);
- 'alternating': the collector's rollouts go through the sampler, the evaluator steps both groups;
- 'worker_inference': the collector's eps-greedy actors live in the env workers and follow the
  learner's weights through shared memory; the evaluator's instance serves `step_batch` calls.
Each stops at the first evaluation reaching 195 (a few seconds), so they stay in the default run."""
import copy
from functools import partial

import pytest
import torch

from ding.config import compile_config
from ding.data import DequeBuffer
from ding.envs import create_env_manager, get_vec_env_setting
from ding.envs.env_manager.alternating_sampler import AlternatingSampler
from ding.envs.env_manager.subprocess_env_manager import SubprocessEnvManagerV2
from ding.envs.env_manager.worker_inference import WorkerInferenceSampler
from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler,
                                       interaction_evaluator, termination_checker)
from ding.model import DQN
from ding.policy import DQNPolicy
from ding.utils import set_pkg_seed
from dizoo.classic_control.cartpole.config.cartpole_dqn_config import create_config, main_config


@pytest.mark.parametrize('manager_type, manager_cls, async_mode', [
    ('subprocess', SubprocessEnvManagerV2, True),
    ('alternating', AlternatingSampler, False),
    ('worker_inference', WorkerInferenceSampler, False),
])
def test_dqn_reaches_195(tmp_path, manager_type, manager_cls, async_mode):
    torch.set_num_threads(1)
    cfg = copy.deepcopy(main_config)
    cfg.exp_name = str(tmp_path / f'dqn_{manager_type}')
    cfg.env.manager = dict(worker_num=2)
    create = copy.deepcopy(create_config)
    create.env_manager = dict(type=manager_type)
    cfg = compile_config(cfg, create_cfg=create, auto=True, seed=0, save_cfg=False)
    env_fn, collector_cfgs, evaluator_cfgs = get_vec_env_setting(cfg.env)
    collector_env = create_env_manager(cfg.env.manager, [partial(env_fn, c) for c in collector_cfgs])
    evaluator_env = create_env_manager(cfg.env.manager, [partial(env_fn, c) for c in evaluator_cfgs])
    assert type(collector_env) is manager_cls and type(evaluator_env) is manager_cls
    set_pkg_seed(cfg.seed, use_cuda=False)
    policy = DQNPolicy(cfg.policy, model=DQN(**cfg.policy.model))
    buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
    with collector_env, evaluator_env:
        with task.start(async_mode=async_mode, ctx=OnlineRLContext()):
            task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
            task.use(eps_greedy_handler(cfg))
            task.use(StepCollector(cfg, policy.collect_mode, collector_env))
            task.use(data_pusher(cfg, buffer_))
            task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
            task.use(termination_checker(max_env_step=60_000))
            task.run()
            ctx = task.ctx
            version = getattr(collector_env, 'weights_version', None)
    assert ctx.last_eval_value >= 195
    assert ctx.env_step % cfg.env.collector_env_num == 0 and ctx.env_episode > 0
    assert collector_env.dropped_episodes == 0 and collector_env.closed
    if manager_type == 'worker_inference':
        published = version // 2 - 1  # publishes after the weights bound at the start
        collects = ctx.env_step // cfg.env.collector_env_num
        # new weights before every collect once the learner runs (it waits for one batch of 64 rows = 8 collects)
        assert collects - 9 <= published <= collects - 1
