"""`ding resume RUN_DIR`: carry on a run from its last run-state checkpoint.

The run is rebuilt from `run.json` (same config, seed and bounds) and the first step restores
`ckpt/run_state.pt` (see `ding.framework.middleware.run_state`), so a run that was killed,
even with SIGKILL, ends as if it had never stopped. An unreadable `run_state.pt` falls back
to `run_state.prev.pt` with a warning; when neither reads, `RunStateUnreadable` says why.
A distributed run (run.json's `distributed` plan) is launched again on Ray with that plan
(`--collectors`, `--learners`, `--address` change it; `--one-process` resumes it in this
process instead); see ding/entry/distributed_train.py for what each node restores.
An offline run (`'offline': true` in run.json, from `ding train --dataset` or
`ding -m serial_offline`) continues through `serial_pipeline_offline(resume=True)`, after
checking that its dataset is still there and unchanged (size and sha256); so is an imitation
run's file of demonstrations.
"""
import argparse
import math
import os
from typing import Any, Dict, Optional

from easydict import EasyDict

from ding.entry.arguments import UsageError, positive_int
from ding.entry.pipeline import RunOptions, build_parts, run_training
from ding.framework.middleware.run_state import read_run_state
from ding.utils.run_dir import RunDir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('run_dir', help='a run directory made by `ding train`')
    parser.add_argument('--no-progress', action='store_true',
                        help='no live progress line (progress.csv and result.json are still written)')
    dist = parser.add_argument_group('distributed (a run recorded with a `distributed` plan goes on Ray again)')
    dist.add_argument('--collectors', type=positive_int, default=None,
                      help='collector actors from now on (a one-process run goes distributed)')
    dist.add_argument('--learners', type=positive_int, default=None, help='learner actors from now on')
    dist.add_argument('--address', default=None, help='Ray cluster to join, HOST:PORT or auto (default: the '
                      'recorded one; none recorded: a local cluster)')
    dist.add_argument('--one-process', action='store_true', help='resume a distributed run in this process')


def resume_run(run_dir: str, progress: bool = True, flags: Optional[argparse.Namespace] = None):
    """Rebuild and continue the run in `run_dir`; returns the final ctx, or None when the
    checkpoint says the run had already finished. `flags`: the distributed flags of `ding resume`."""
    from ding.config import compile_config
    rd = RunDir(run_dir)
    meta = rd.read_meta()
    if not (os.path.isfile(rd.run_state) or os.path.isfile(rd.run_state_prev)):
        raise FileNotFoundError(f'{run_dir} has no run-state checkpoint yet ({rd.run_state}); start it again with '
                                f'`ding train` instead')
    state, _, _ = read_run_state(rd.run_state)  # the restore says which file, if not the latest
    plan = distributed_plan(meta, flags)  # bad flags: before anything runs
    counter = 'train_iter' if meta.get('offline') else 'env_step'
    if state['finished']:
        print(f'{run_dir} already finished at {counter}={state["ctx"][counter]}; nothing to resume')
        return None
    if meta.get('offline'):
        start = state['ctx']['train_iter']
        del state
        return resume_offline(rd, meta, start)
    if meta.get('demonstrations'):  # an imitation run reads its demonstrations again: the same file
        from ding.data.dataset_fingerprint import check_dataset_fingerprint
        check_dataset_fingerprint(meta['demonstrations'])
    main = EasyDict(meta['main_config'])
    main.exp_name = rd.root
    cfg = compile_config(main, create_cfg=EasyDict(meta['create_config']), auto=True, seed=meta['seed'],
                         renew_dir=False)
    where = f' on Ray: {plan.collectors} collector(s), {plan.learners} learner(s)' if plan else ''
    print(f'resuming {os.path.abspath(rd.root)} from env_step={state["ctx"]["env_step"]} '
          f'train_iter={state["ctx"]["train_iter"]}{where}', flush=True)
    options = RunOptions(max_env_step=meta['max_env_step'], checkpoint_freq=meta['checkpoint_freq'], resume=True,
                         progress=progress and meta.get('progress', True), stop_on_signals=True,
                         async_mode=meta.get('async_mode', False), max_lag=meta.get('max_lag', 1),
                         keep_checkpoints=meta.get('keep_checkpoints'))
    if plan is not None:
        from ding.entry.distributed_train import ResumePoint, final_counters, launch_training
        point = ResumePoint(ctx=state['ctx'], policy=state['policy'], best_eval=best_eval_so_far(rd, state))
        del state
        if meta.get('distributed') != plan.to_dict():  # the plan from now on: a later resume takes it too
            rd.write_meta({**meta, 'distributed': plan.to_dict()})
        try:
            results = launch_training(cfg, main, EasyDict(meta['create_config']), meta['seed'], options, plan,
                                      resume=point)
        except UsageError:  # refused before any step (pipeline kind, cluster size): the recorded plan stands
            rd.write_meta(meta)
            raise
        return final_counters(results, plan)
    del state
    parts = build_parts(cfg)
    try:
        return run_training(cfg, parts, options)
    finally:
        parts.close()


def distributed_plan(meta: Dict[str, Any], flags: Optional[argparse.Namespace]) -> Any:
    """The plan a run resumes on (run.json's, with `flags` on top), or None for one process."""
    from ding.entry.distributed_train import plan_from
    flags = flags or argparse.Namespace()
    if getattr(flags, 'one_process', False):
        return None
    if meta.get('offline') and any(getattr(flags, k, None) is not None for k in ('collectors', 'learners')):
        raise UsageError('an offline run has no collectors to distribute: resume it without --collectors/--learners')
    plan = plan_from(meta.get('distributed'), flags)
    if not plan.active:
        return None
    if meta.get('async_mode'):
        raise UsageError('this run ran with --async in one process; resume it without --collectors/--learners')
    return plan


def best_eval_so_far(rd: RunDir, state: Dict[str, Any]) -> float:
    """The best evaluation up to the checkpoint: a one-process run's CkptSaver kept it in the run
    state; a distributed run's evaluator wrote it to result.json only."""
    saver = (state.get('extra') or {}).get('ckpt_saver')
    if saver is not None:
        return float(saver['best_eval'])
    from ding.framework.middleware.progress import read_rows
    values = [row['eval_return_mean'] for row in read_rows(rd.result_json)
              if row['env_step'] <= state['ctx']['env_step'] and row['eval_return_mean'] is not None]
    return max(values, default=-math.inf)


def resume_offline(rd: RunDir, meta: dict, start_iter: int) -> Any:
    """Continue an offline run (the pipeline checks its dataset against run.json first)."""
    from ding.entry.serial_offline import serial_pipeline_offline
    print(f'resuming offline run {os.path.abspath(rd.root)} from train_iter={start_iter}', flush=True)
    policy = serial_pipeline_offline((EasyDict(meta['main_config']), EasyDict(meta['create_config'])),
                                     seed=meta['seed'], max_train_iter=meta['max_train_iter'], resume=True,
                                     checkpoint_freq=meta['checkpoint_freq'], exp_name=rd.root,
                                     keep_checkpoints=meta.get('keep_checkpoints'))
    return policy.final_ctx


def main(args: argparse.Namespace) -> int:
    from ding.entry.train import summary
    from ding.entry.train_offline import offline_summary
    ctx = resume_run(args.run_dir, progress=not args.no_progress, flags=args)
    if ctx is not None:
        print(offline_summary(ctx) if hasattr(ctx, 'train_epoch') else summary(ctx))
    return 0
