"""The on-policy pipeline the PPO, A2C and PG entries run, top to bottom:

    evaluator -> StepCollector -> gae_estimator -> multistep_trainer            (PPO, A2C)
    evaluator -> EpisodeCollector -> montecarlo_return_estimator -> trainer     (PG: whole episodes)
              -> CkptSaver -> online_logger -> termination_checker

The stages that collect and learn are `build_pipeline`'s (ding/entry/pipeline.py), as in
`ding train`.
"""
from typing import Any, Callable

import torch

from ding.entry.pipeline import RunParts, build_pipeline
from ding.envs import create_env_manager
from ding.framework import ding_init, task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import CkptSaver, interaction_evaluator, online_logger, termination_checker
from ding.utils import set_pkg_seed


def run_onpolicy(cfg: Any, make_env: Callable[[], Any], policy_cls: type, model_cls: type, max_env_step: int,
                 log_freq: int = 50, ckpt_freq: int = 100, whole_episodes: bool = False) -> OnlineRLContext:
    """Train on a compiled `cfg` with envs from `make_env()` until the greedy evaluation reaches
    `cfg.env.stop_value` or `max_env_step` env steps; returns the final ctx. `log_freq` and
    `ckpt_freq` count train iterations."""
    torch.set_num_threads(1)
    ding_init(cfg)
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        collector_env = create_env_manager(cfg.env.manager, [make_env] * cfg.env.collector_env_num)
        evaluator_env = create_env_manager(cfg.env.manager, [make_env] * cfg.env.evaluator_env_num)
        set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
        policy = policy_cls(cfg.policy, model=model_cls(**cfg.policy.model))

        task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
        parts = RunParts(policy, None, collector_env, evaluator_env)
        for stage in build_pipeline(cfg, parts, 'episode' if whole_episodes else 'onpolicy', log_freq=log_freq):
            task.use(stage)
        task.use(CkptSaver(policy, cfg.exp_name, train_freq=ckpt_freq))
        task.use(online_logger(train_show_freq=log_freq))
        task.use(termination_checker(max_env_step=max_env_step))
        task.run()
        collector_env.close()
        evaluator_env.close()
        return task.ctx
