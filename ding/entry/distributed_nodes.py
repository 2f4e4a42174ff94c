"""One node's share of a distributed `ding train` run (see ding/entry/distributed_train.py):
what it builds for its role and the middleware chain it runs."""
import os
from typing import Any, Dict, Optional

from ding.entry.pipeline import (RunParts, build_pipeline, make_env_manager, make_policy, make_replay_buffer,
                                 pipeline_kind)
from ding.utils.run_dir import RunDir


def build_role_parts(cfg: Any, role: str) -> RunParts:
    """Only what the role acts on: the learner has no env, a collector no buffer. Every role
    keeps a whole policy, so the evaluator's `eval.pth.tar` loads like any other checkpoint."""
    from ding.utils import set_pkg_seed
    collector_env = make_env_manager(cfg, collect=True) if role == 'collector' else None
    evaluator_env = make_env_manager(cfg, collect=False) if role == 'evaluator' else None
    set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
    policy = make_policy(cfg)
    buffer_ = make_replay_buffer(cfg) if role == 'learner' and pipeline_kind(cfg) == 'offpolicy' else None
    return RunParts(policy, buffer_, collector_env, evaluator_env)


def run_node(cfg: Any, options: Any, role: str, rank: int = 0, learner: Optional[int] = None, resume: Any = None,
             collectors: int = 1) -> Dict[str, Any]:
    """Run this node's pipeline until the run ends (from `resume`, a ResumePoint, when given);
    returns its final counters."""
    from ding.framework import ding_init, task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import ContextExchanger, ModelExchanger
    parts = build_role_parts(cfg, role)
    try:
        if role != 'collector':
            ding_init(cfg)
        with task.start(async_mode=False, ctx=OnlineRLContext()):
            task.add_role(role)
            if role == 'learner' and rank == 0:
                from ding.framework.middleware import RunStateSaver
                task.use(RunStateSaver(RunDir(cfg.exp_name).root, parts.policy, parts.buffer, None,
                                       every_env_step=options.checkpoint_freq, resume=resume is not None))
            elif resume is not None:
                task.use(resumed_node(resume, role, parts.policy, collectors))
            task.use(ContextExchanger(skip_n_iter=1, learner=learner))
            task.use(ModelExchanger(parts.policy._model))
            {'learner': _use_learner, 'evaluator': _use_evaluator, 'collector': _use_collector}[role](
                task, cfg, parts, options, rank, resume)
            task.run()
            ctx = task.ctx
            return {'role': role, 'env_step': int(ctx.env_step), 'train_iter': int(ctx.train_iter),
                    'env_episode': int(ctx.env_episode), 'last_eval_value': ctx.last_eval_value,
                    'params_digest': params_digest(parts.policy._model),
                    'cpus': sorted(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else None}
    finally:
        parts.close()


def resumed_node(resume: Any, role: str, policy: Any, collectors: int) -> Any:
    """First middleware of a resumed run's node other than learner rank 0 (whose RunStateSaver
    restores the whole run state): at its first step, what the node goes on from.
    - another data-parallel learner: rank 0's learner state and counters (its own replay buffer is
      not in the checkpoint: its collectors refill it);
    - the evaluator: the counters (it adds the collectors' new steps to them);
    - a collector: the weights, and its share of the env steps and episodes, which its exploration
      schedule and random warm-up read (each collector counts its own).
    """
    from ding.framework.middleware.run_state import load_ctx_state
    pending = [True]

    def _resume(ctx: Any) -> None:
        if not pending[0]:
            return
        pending[0] = False
        if role == 'learner':
            policy.learn_mode.load_state_dict(resume.policy)
            load_ctx_state(ctx, resume.ctx, next_step=True)
        elif role == 'evaluator':
            load_ctx_state(ctx, resume.ctx, next_step=True)
        else:
            policy.collect_mode.load_state_dict(resume.policy)
            ctx.env_step = int(resume.ctx['env_step']) // collectors
            ctx.env_episode = int(resume.ctx['env_episode']) // collectors

    return _resume


def params_digest(model: Any) -> str:
    """A hash of the model's parameters: data-parallel learners must end with equal ones."""
    import hashlib
    digest = hashlib.sha1()
    for name, value in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(value.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


def _use_collector(task: Any, cfg: Any, parts: RunParts, options: Any, rank: int, resume: Any = None) -> None:
    # the n-step stage runs here: each env's rows are in order on its collector only
    for stage in build_pipeline(cfg, parts, role='collector'):
        task.use(stage)


def _use_learner(task: Any, cfg: Any, parts: RunParts, options: Any, rank: int, resume: Any = None) -> None:
    from ding.entry import learner_hooks
    from ding.framework import middleware as mw
    policy = parts.policy
    for stage in build_pipeline(cfg, parts, role='learner'):
        task.use(stage)
    task.use(mw.online_logger(train_show_freq=learner_hooks.log_train_freq(cfg, 100)))
    if rank == 0:  # one writer of iteration checkpoints
        task.use(mw.CkptSaver(policy, RunDir(cfg.exp_name).root,
                              train_freq=learner_hooks.ckpt_train_freq(cfg, options.ckpt_train_freq),
                              keep_last=options.keep_checkpoints))
    task.use(mw.termination_checker(max_env_step=options.max_env_step, max_train_iter=options.max_train_iter))


def _use_evaluator(task: Any, cfg: Any, parts: RunParts, options: Any, rank: int, resume: Any = None) -> None:
    from ding.framework import middleware as mw
    root = RunDir(cfg.exp_name).root
    # the live line is the driver's terminal's only through Ray's log forwarding: files only
    task.use(mw.progress_reporter(root, max_env_step=options.max_env_step, show=False))
    task.use(mw.interaction_evaluator(cfg, parts.policy.eval_mode, parts.evaluator_env))
    best_evals = mw.CkptSaver(parts.policy, root, train_freq=None, save_finish=False)  # best evals only
    if resume is not None:  # eval.pth.tar is replaced only by a better evaluation than the run's best so far
        best_evals.load_state_dict({'best_eval': resume.best_eval, 'last_save_iter': 0})
    task.use(best_evals)
    task.use(mw.termination_checker(max_env_step=options.max_env_step, max_train_iter=options.max_train_iter))
    task.use(mw.final_ctx_saver(root))

