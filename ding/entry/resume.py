"""`ding resume RUN_DIR`: carry on a run from its last run-state checkpoint.

The run is rebuilt from `run.json` (same config, seed and bounds) and the first step restores
`ckpt/run_state.pt` (see `ding.framework.middleware.run_state`), so a run that was killed,
even with SIGKILL, ends as if it had never stopped. An unreadable `run_state.pt` falls back
to `run_state.prev.pt` with a warning; when neither reads, `RunStateUnreadable` says why.
An offline run (`'offline': true` in run.json, from `ding train --dataset` or
`ding -m serial_offline`) continues through `serial_pipeline_offline(resume=True)`, after
checking that its dataset is still there and unchanged (size and sha256).
"""
import argparse
import os
from typing import Any

from easydict import EasyDict

from ding.entry.pipeline import RunOptions, build_parts, run_training
from ding.framework.middleware.run_state import read_run_state
from ding.utils.run_dir import RunDir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('run_dir', help='a run directory made by `ding train`')
    parser.add_argument('--no-progress', action='store_true', 
                        help='no live progress line (progress.csv and result.json are still written)')


def resume_run(run_dir: str, progress: bool = True):
    """Rebuild and continue the run in `run_dir`; returns the final ctx, or None when the
    checkpoint says the run had already finished."""
    from ding.config import compile_config
    rd = RunDir(run_dir)
    meta = rd.read_meta()
    if not (os.path.isfile(rd.run_state) or os.path.isfile(rd.run_state_prev)):
        raise FileNotFoundError(f'{run_dir} has no run-state checkpoint yet ({rd.run_state}); start it again with '
                                f'`ding train` instead')
    state, _, _ = read_run_state(rd.run_state)  # the restore says which file, if not the latest
    counter = 'train_iter' if meta.get('offline') else 'env_step'
    if state['finished']:
        print(f'{run_dir} already finished at {counter}={state["ctx"][counter]}; nothing to resume')
        return None
    if meta.get('offline'):
        start = state['ctx']['train_iter']
        del state
        return resume_offline(rd, meta, start)
    main = EasyDict(meta['main_config'])
    main.exp_name = rd.root
    cfg = compile_config(main, create_cfg=EasyDict(meta['create_config']), auto=True, seed=meta['seed'],
                         renew_dir=False)
    print(f'resuming {os.path.abspath(rd.root)} from env_step={state["ctx"]["env_step"]} '
          f'train_iter={state["ctx"]["train_iter"]}', flush=True)
    del state
    options = RunOptions(max_env_step=meta['max_env_step'], checkpoint_freq=meta['checkpoint_freq'], resume=True,
                         progress=progress and meta.get('progress', True), stop_on_signals=True,
                         async_mode=meta.get('async_mode', False))
    parts = build_parts(cfg)
    try:
        return run_training(cfg, parts, options)
    finally:
        parts.close()


def resume_offline(rd: RunDir, meta: dict, start_iter: int) -> Any:
    """Continue an offline run (the pipeline checks its dataset against run.json first)."""
    from ding.entry.serial_offline import serial_pipeline_offline
    print(f'resuming offline run {os.path.abspath(rd.root)} from train_iter={start_iter}', flush=True)
    policy = serial_pipeline_offline((EasyDict(meta['main_config']), EasyDict(meta['create_config'])),
                                     seed=meta['seed'], max_train_iter=meta['max_train_iter'], resume=True,
                                     checkpoint_freq=meta['checkpoint_freq'], exp_name=rd.root)
    return policy.final_ctx


def main(args: argparse.Namespace) -> int:
    from ding.entry.train import summary
    from ding.entry.train_offline import offline_summary
    ctx = resume_run(args.run_dir, progress=not args.no_progress)
    if ctx is not None:
        print(offline_summary(ctx) if hasattr(ctx, 'train_epoch') else summary(ctx))
    return 0
