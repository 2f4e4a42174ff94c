"""The continuous-control pipeline of the spec (section 5) that the SAC, TD3 and DDPG entries
run (Pendulum, MuJoCo):

    evaluator -> StepCollector(random warm-up) -> data_pusher -> OffPolicyLearner
              -> CkptSaver -> termination_checker

The stages that collect and learn are `build_pipeline`'s (ding/entry/pipeline.py), as in
`ding train`; around them this entry keeps its own envs, model and buffer.

It also records every evaluation (env steps, train iterations, wall seconds since training
started, mean return), which the tests and the speed benchmarks read.
"""
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from ding.data import DequeBuffer
from ding.entry.pipeline import RunParts, build_pipeline
from ding.envs import create_env_manager
from ding.framework import ding_init, task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import CkptSaver, interaction_evaluator, termination_checker
from ding.model import ContinuousQAC
from ding.utils import set_pkg_seed


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
        collector_env = create_env_manager(cfg.env.manager, [make_env] * cfg.env.collector_env_num)
        evaluator_env = create_env_manager(cfg.env.manager, [make_env] * cfg.env.evaluator_env_num)
        set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
        model = ContinuousQAC(**cfg.policy.model)
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
        policy = policy_cls(cfg.policy, model=model)

        task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
        task.use(eval_recorder(history, start))
        for stage in build_pipeline(cfg, RunParts(policy, buffer_, collector_env, evaluator_env), 'offpolicy'):
            task.use(stage)
        task.use(CkptSaver(policy, cfg.exp_name, train_freq=10000))
        task.use(termination_checker(max_env_step=max_env_step))
        for fn in extra_middleware:
            task.use(fn)
        start[0] = time.perf_counter()
        task.run()
        collector_env.close()
        evaluator_env.close()
    return history


def first_reaching(history: List[Dict[str, Any]], threshold: float) -> Optional[Dict[str, Any]]:
    """The first evaluation whose mean return is >= threshold, or None."""
    return next((h for h in history if h['eval_value'] >= threshold), None)


def print_history(history: List[Dict[str, Any]]) -> None:
    for h in history:
        print(f"env_step {h['env_step']:8d}  train_iter {h['train_iter']:8d}  "
              f"wall {h['wall_s']:8.1f}s  eval {h['eval_value']:9.1f}")
