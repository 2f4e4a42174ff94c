"""The continuous-control pipeline of the spec (section 5) for SAC, TD3 and DDPG: Pendulum
here, and the MuJoCo entries reuse `run_offpolicy`.

    evaluator -> StepCollector(random warm-up) -> data_pusher -> OffPolicyLearner
              -> CkptSaver -> termination_checker

`train(...)` also records every evaluation (env steps, train iterations, wall seconds since
training started, mean return), which the tests and the speed benchmark read.
"""
import copy
import importlib
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from ding.config import compile_config
from ding.data import DequeBuffer
from ding.envs import BaseEnvManagerV2
from ding.framework import ding_init, task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (CkptSaver, OffPolicyLearner, StepCollector, data_pusher, interaction_evaluator,
                                       termination_checker)
from ding.model import ContinuousQAC
from ding.policy import DDPGPolicy, SACPolicy, TD3Policy
from ding.utils import set_pkg_seed
from ding.utils.dicts import deep_merge
from dizoo.classic_control.pendulum.envs.pendulum_env import PendulumEnv

POLICIES = {'sac': SACPolicy, 'td3': TD3Policy, 'ddpg': DDPGPolicy}


def load_config(algo: str, seed: int, exp_name: Optional[str] = None, overrides: Optional[Dict] = None,
                save_cfg: bool = True):
    """The compiled config of `pendulum_<algo>_config`, with `overrides` (a nested dict) applied."""
    module = importlib.import_module(f'dizoo.classic_control.pendulum.config.pendulum_{algo}_config')
    main_config = deep_merge(copy.deepcopy(module.main_config), overrides or {})
    main_config.exp_name = exp_name or main_config.exp_name.replace('seed0', f'seed{seed}')
    return compile_config(main_config, create_cfg=copy.deepcopy(module.create_config), auto=True, seed=seed,
                          save_cfg=save_cfg)


def eval_recorder(history: List[Dict[str, Any]], start: List[float]) -> Any:
    """Appends one record per evaluation the evaluator ran in this step."""

    def _record(ctx: Any) -> None:
        if ctx.eval_value != float('-inf'):
            history.append({'env_step': int(ctx.env_step), 'train_iter': int(ctx.train_iter),
                            'wall_s': time.perf_counter() - start[0], 'eval_value': float(ctx.eval_value)})

    return _record


def run_offpolicy(cfg: Any, make_env: Callable[[], Any], policy_cls: Any, max_env_step: int,
                  torch_threads: int = 1, extra_middleware: Sequence[Callable] = ()) -> List[Dict[str, Any]]:
    """The pipeline on a compiled `cfg`, with envs from `make_env()`; returns the evaluation history.
    Stops when the eval mean reaches `cfg.env.stop_value` or after `max_env_step` env steps.
    `extra_middleware` run at the end of each step (e.g. a benchmark's timer)."""
    torch.set_num_threads(torch_threads)
    ding_init(cfg)
    history: List[Dict[str, Any]] = []
    start = [time.perf_counter()]
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        collector_env = BaseEnvManagerV2([make_env] * cfg.env.collector_env_num, cfg.env.manager)
        evaluator_env = BaseEnvManagerV2([make_env] * cfg.env.evaluator_env_num, cfg.env.manager)
        set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
        model = ContinuousQAC(**cfg.policy.model)
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
        policy = policy_cls(cfg.policy, model=model)

        task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
        task.use(eval_recorder(history, start))
        task.use(StepCollector(cfg, policy.collect_mode, collector_env,
                               random_collect_size=cfg.policy.random_collect_size))
        task.use(data_pusher(cfg, buffer_))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
        task.use(CkptSaver(policy, cfg.exp_name, train_freq=10000))
        task.use(termination_checker(max_env_step=max_env_step))
        for fn in extra_middleware:
            task.use(fn)
        start[0] = time.perf_counter()
        task.run()
        collector_env.close()
        evaluator_env.close()
    return history


def train(algo: str = 'sac', seed: int = 0, max_env_step: int = 20000, stop_value: Optional[float] = None,
          exp_name: Optional[str] = None, overrides: Optional[Dict] = None, torch_threads: int = 1,
          save_cfg: bool = True) -> List[Dict[str, Any]]:
    """`algo` in sac/td3/ddpg on Pendulum until the eval mean reaches `stop_value` (default: the
    config's) or `max_env_step` env steps; returns the evaluation history."""
    overrides = copy.deepcopy(overrides or {})
    if stop_value is not None:
        overrides.setdefault('env', {})['stop_value'] = stop_value
    cfg = load_config(algo, seed, exp_name, overrides, save_cfg)
    return run_offpolicy(cfg, lambda: PendulumEnv(cfg.env), POLICIES[algo], max_env_step, torch_threads)


def first_reaching(history: List[Dict[str, Any]], threshold: float) -> Optional[Dict[str, Any]]:
    """The first evaluation whose mean return is >= threshold, or None."""
    return next((h for h in history if h['eval_value'] >= threshold), None)


def main(algo: str) -> None:
    import argparse
    import logging
    logging.basicConfig(level=logging.INFO, format='%(asctime)s %(name)s: %(message)s', datefmt='%H:%M:%S')
    parser = argparse.ArgumentParser(description=f'{algo.upper()} on Pendulum-v1')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--max-env-step', type=int, default=20000)
    parser.add_argument('--stop-value', type=float, default=None)
    parser.add_argument('--exp-name', default=None)
    args = parser.parse_args()
    history = train(algo, args.seed, args.max_env_step, args.stop_value, args.exp_name)
    for h in history:
        print(f"env_step {h['env_step']:6d}  train_iter {h['train_iter']:6d}  "
              f"wall {h['wall_s']:6.1f}s  eval {h['eval_value']:8.1f}")
