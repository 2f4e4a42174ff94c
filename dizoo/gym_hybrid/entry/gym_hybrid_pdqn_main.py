"""Train PDQN on Moving-v0 (dizoo/gym_hybrid) with the off-policy middleware pipeline.

    python -m dizoo.gym_hybrid.entry.gym_hybrid_pdqn_main [--seed N] [--max-env-step N] [--exp-name DIR]

The pipeline of DI-engine's ding/example/pdqn.py, plus a step limit and final_ctx.json.
`overrides` (python callers) are merged into `gym_hybrid_pdqn_config.main_config`.
"""
from typing import Any, Mapping, Optional

import gymnasium as gym
import torch

import dizoo.gym_hybrid  # noqa: F401  (registers Moving-v0)
from ding.data import DequeBuffer
from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.framework import ding_init, task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler,
                                       final_ctx_saver, interaction_evaluator, termination_checker)
from ding.model import PDQN
from ding.policy import PDQNPolicy
from ding.utils import set_pkg_seed
from dizoo.common.cli import run_from_command_line
from dizoo.common.config_loader import load_config

CONFIG = 'dizoo.gym_hybrid.config.gym_hybrid_pdqn_config'


def main(seed: int = 0, max_env_step: int = int(1e6), exp_name: str = None,
         overrides: Optional[Mapping[str, Any]] = None, env_kwargs: Optional[Mapping[str, Any]] = None
         ) -> OnlineRLContext:
    """Runs until the eval return reaches stop_value or `max_env_step`; returns the final ctx
    (its `policy` attribute is the trained PDQNPolicy). `env_kwargs` go to MovingEnv (e.g.
    target_radius)."""
    torch.set_num_threads(1)
    cfg = load_config(CONFIG, seed, exp_name, overrides)
    ding_init(cfg)
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        envs = [BaseEnvManagerV2(env_fn=[lambda: DingEnvWrapper(gym.make(cfg.env.env_id, **(env_kwargs or {}))) for _ in range(n)],
                                 cfg=cfg.env.manager)
                for n in (cfg.env.collector_env_num, cfg.env.evaluator_env_num)]
        set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
        policy = PDQNPolicy(cfg.policy, model=PDQN(**cfg.policy.model))
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
        task.use(interaction_evaluator(cfg, policy.eval_mode, envs[1]))
        task.use(eps_greedy_handler(cfg))
        task.use(StepCollector(cfg, policy.collect_mode, envs[0]))
        task.use(data_pusher(cfg, buffer_))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
        task.use(termination_checker(max_env_step=max_env_step))
        task.use(final_ctx_saver(cfg.exp_name))
        task.run()
        for env in envs:
            env.close()
        task.ctx.policy = policy
        return task.ctx


if __name__ == '__main__':
    run_from_command_line(main, __doc__)
