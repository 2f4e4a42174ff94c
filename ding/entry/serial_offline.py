"""`serial_pipeline_offline`: offline training on a dataset, and `ding -m serial_offline -c CONFIG`.

The pipeline (sync mode, an `OfflineRLContext`):
  OfflineRunStateSaver -> offline_progress -> interaction_evaluator -> offline_data_fetcher -> trainer ->
  offline_logger -> CkptSaver -> termination (train_epoch epochs / max_train_iter)
The dataset is `create_dataset(cfg)` (`cfg.policy.collect.data_type` / `data_path`); the run
ends at the evaluator's `env.stop_value`, after `cfg.policy.learn.train_epoch` epochs over the
dataset, or at `max_train_iter` updates, whichever comes first. Checkpoints as online runs:
`ckpt/iteration_*.pth.tar`, `eval.pth.tar` (best evaluation), `final.pth.tar`, and the
run-state file `ckpt/run_state.pt` every `checkpoint_freq` updates, from which `resume=True`
continues exactly (the learner, the fetcher's place in its epoch, counters and RNGs).
A fresh run records in `run.json` its config, seed, bounds and the dataset's fingerprint
(`ding.data.dataset_fingerprint`), so `ding resume RUN_DIR` can rebuild it and refuses a
dataset that is gone or changed.
"""
import logging
import os
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np
import torch

from ding.framework.contract import contract

logger = logging.getLogger('ding.entry')


def epoch_budget(train_epoch: Optional[int], max_train_iter: Optional[int]) -> Any:
    """Sets `task.finish` once `train_epoch` epochs are done or `max_train_iter` updates made."""
    from ding.framework.middleware import _common

    def _check(ctx: Any) -> None:
        if (train_epoch is not None and ctx.train_epoch >= train_epoch) or \
                (max_train_iter is not None and ctx.train_iter >= max_train_iter):
            _common.current_task().finish = True

    return contract(_check, reads=('train_epoch', 'train_iter'), name='epoch_budget')


class NormalizedObsActing:
    """An acting mode fed observations normalised by the dataset's mean and std: the policy was
    trained on normalised observations (`env.norm_obs.offline_stats.use_offline_stats`)."""

    def __init__(self, mode: Any, mean: np.ndarray, std: np.ndarray) -> None:
        self._mode, self._mean, self._std = mode, mean.astype(np.float32), std.astype(np.float32)

    def reset(self, env_ids: Any = None) -> None:
        self._mode.reset(env_ids)

    def forward_batch(self, obs: Any, **kwargs: Any) -> Any:
        return self._mode.forward_batch((np.asarray(obs, dtype=np.float32) - self._mean) / self._std, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._mode, name)


def record_run(cfg: Any, main: Any, create: Any, seed: int, max_train_iter: Optional[int], checkpoint_freq: int,
               run_info: Optional[Dict[str, Any]]) -> None:
    """run.json of an offline run: what `ding resume` rebuilds it from, and its dataset's fingerprint."""
    from ding.config.io import to_plain
    from ding.data.dataset_fingerprint import dataset_fingerprint, dataset_path_of
    from ding.utils.run_dir import RunDir
    path = dataset_path_of(cfg)
    RunDir(cfg.exp_name).write_meta({
        **(run_info or {}), 'offline': True, 'seed': seed, 'max_train_iter': max_train_iter,
        'checkpoint_freq': checkpoint_freq, 'exp_name': cfg.exp_name, 'main_config': to_plain(main),
        'create_config': to_plain(create),
        'dataset': dataset_fingerprint(path) if path and os.path.exists(path) else None})


def check_resumable_dataset(run_dir: str) -> None:
    """Before resuming: the dataset recorded in run.json is still there, unchanged."""
    from ding.data.dataset_fingerprint import check_dataset_fingerprint
    from ding.utils.run_dir import RunDir
    rd = RunDir(run_dir)
    if os.path.isfile(rd.run_json):
        recorded = rd.read_meta().get('dataset')
        if recorded:
            check_dataset_fingerprint(recorded)


def serial_pipeline_offline(input_cfg: Union[str, Tuple[Any, Any]], seed: int = 0, env_setting: Any = None,
                            model: Optional[torch.nn.Module] = None, max_train_iter: Optional[int] = int(1e10),
                            resume: bool = False, checkpoint_freq: int = 1000, exp_name: Optional[str] = None,
                            save_cfg: bool = True, run_info: Optional[Dict[str, Any]] = None,
                            keep_checkpoints: Optional[int] = None) -> Any:
    """Train `input_cfg` (a config file, or (main_config, create_config)) on its dataset; returns
    the policy. `env_setting` is (env class, collector cfgs, evaluator cfgs).
    `run_info` (e.g. algo, env) goes into run.json. `keep_checkpoints`: iteration checkpoints
    kept (CkptSaver's `keep_last`; None: all)."""
    import copy
    from functools import partial

    from easydict import EasyDict

    from ding.config import compile_config, read_config
    from ding.data import create_dataset
    from ding.data.sequence_dataset import SequenceDataset
    from ding.entry.offline_progress import offline_progress
    from ding.entry.pipeline import make_env_manager
    from ding.framework import ding_init, task
    from ding.framework import middleware as mw
    from ding.envs import AllinObsWrapper
    from ding.framework.context import OfflineRLContext
    from ding.utils import set_pkg_seed
    from ding.utils.registry import POLICY_REGISTRY
    if isinstance(input_cfg, (str, os.PathLike)):
        input_cfg = read_config(os.fspath(input_cfg))
    main, create = input_cfg
    main = EasyDict(copy.deepcopy(dict(main)))
    if exp_name is not None:
        main.exp_name = exp_name
    cfg = compile_config(main, create_cfg=copy.deepcopy(create), auto=True, seed=seed, save_cfg=save_cfg,
                         renew_dir=not resume)
    main.exp_name = cfg.exp_name
    if resume:
        check_resumable_dataset(cfg.exp_name)
    elif model is None and env_setting is None:  # only then can `ding resume` rebuild the run from run.json
        record_run(cfg, main, create, seed, max_train_iter, checkpoint_freq,
                   dict(run_info or {}, keep_checkpoints=keep_checkpoints))
    torch.set_num_threads(1)  # small networks: one thread is fastest (see docs/design notes)
    writer = ding_init(cfg)
    dataset = create_dataset(cfg)  # a missing or bad dataset fails before anything is started
    # Decision Transformer: windows of episodes; it normalises states by the dataset's statistics
    # and acts on the observation and the last reward (the evaluator's envs wrapped to give both)
    sequence = isinstance(dataset, SequenceDataset)
    if sequence:
        cfg.policy.state_mean, cfg.policy.state_std = (v.tolist() for v in dataset.get_state_stats())
    set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
    policy = POLICY_REGISTRY.lookup(cfg.policy.type)(cfg.policy, model=model)
    eval_mode = policy.eval_mode
    if getattr(dataset, 'obs_normalized', False):
        from ding.utils.fileio import atomic_write_json
        stats = {'mean': dataset.mean.tolist(), 'std': dataset.std.tolist()}
        cfg.env.norm_obs.offline_stats.update(stats)  # the config records them too
        atomic_write_json(os.path.join(cfg.exp_name, 'obs_normalization.json'), stats)  # to act with later
        eval_mode = NormalizedObsActing(eval_mode, dataset.mean, dataset.std)
    train_epoch = cfg.policy.learn.get('train_epoch')
    fetcher = mw.offline_data_fetcher(cfg, dataset)
    ckpt_saver = mw.CkptSaver(policy, cfg.exp_name, train_freq=checkpoint_freq, keep_last=keep_checkpoints)
    saver = mw.OfflineRunStateSaver(cfg.exp_name, policy, every_train_iter=checkpoint_freq, resume=resume,
                                    extra={'fetcher': fetcher, 'ckpt_saver': ckpt_saver})
    logger.info('offline run %s: %d transitions, %s epochs at most, max_train_iter=%s', cfg.exp_name, len(dataset),
                train_epoch, max_train_iter)
    if env_setting is not None:
        from ding.envs import create_env_manager
        env_cls, _, evaluator_cfgs = env_setting
        evaluator_env = create_env_manager(cfg.env.manager, [partial(env_cls, c) for c in evaluator_cfgs])
    else:
        evaluator_env = make_env_manager(cfg, collect=False, wrap=AllinObsWrapper if sequence else None)
    try:
        with task.start(async_mode=False, ctx=OfflineRLContext()):
            task.use(saver)
            task.use(offline_progress(cfg.exp_name))  # progress.csv, result.json (`ding plot`)
            task.use(mw.interaction_evaluator(cfg, eval_mode, evaluator_env))
            task.use(fetcher)
            task.use(mw.trainer(cfg, policy.learn_mode))
            task.use(mw.offline_logger())
            task.use(ckpt_saver)
            task.use(epoch_budget(train_epoch, max_train_iter))
            task.run()
            ctx = task.ctx
    finally:
        if not evaluator_env.closed:
            evaluator_env.close()
        writer.close()  # the run's events on disk, the file closed
    logger.info('offline run %s finished: train_iter=%d epochs=%d last eval return=%s', cfg.exp_name, ctx.train_iter,
                ctx.train_epoch, ctx.last_eval_value)
    policy.final_ctx = ctx  # what the run ended at (the CLI prints it)
    return policy
