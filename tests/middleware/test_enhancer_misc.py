import json
import os

import numpy as np
import pytest
import torch

from ding.data.batch import Batch
from ding.data.buffer.deque_buffer import DequeBuffer
from ding.framework.context import OfflineRLContext, OnlineRLContext
from ding.framework.middleware import (Barrier, CkptSaver, ContextExchanger, ModelExchanger, epoch_timer,
                                       final_ctx_saver, nstep_reward_enhancer, offline_data_fetcher,
                                       offline_data_saver, online_logger, priority_calculator, termination_checker,
                                       buffer_saver)

from .conftest import MockLearnPolicy, drive, make_cfg


def two_segments():
    return Batch(
        obs=np.arange(7, dtype=np.float32)[:, None],
        next_obs=np.arange(1, 8, dtype=np.float32)[:, None],
        action=np.zeros(7, dtype=np.int64),
        reward=np.array([1, 2, 3, 4, 10, 20, 30], dtype=np.float32),
        done=np.array([0, 1, 0, 0, 0, 0, 0], dtype=bool),
        truncated=np.array([0, 0, 0, 0, 0, 1, 0], dtype=bool),
    )


def test_nstep_reward_enhancer_stops_at_episode_ends_and_holds_unfinished_windows():
    ctx = OnlineRLContext(trajectories=two_segments(), trajectory_end_idx=[3, 6])
    drive(nstep_reward_enhancer(make_cfg(policy__nstep=3)), ctx)
    t = ctx.trajectories  # rows 2, 3 and 6 wait for the next collect call
    assert t.reward.tolist() == [[1, 2, 0], [2, 0, 0], [10, 20, 0], [20, 0, 0]]
    assert t.nstep.tolist() == [2, 1, 2, 1]
    assert t.done.tolist() == [True, True, False, False]
    assert t.truncated.tolist() == [False, False, True, True]
    assert t.next_obs[:, 0].tolist() == [2, 2, 6, 6]
    assert t.obs[:, 0].tolist() == [0, 1, 4, 5]
    assert ctx.trajectory_end_idx == [1, 3]


def test_nstep_one_is_unchanged():
    batch = two_segments()
    ctx = OnlineRLContext(trajectories=batch, trajectory_end_idx=[3, 6])
    drive(nstep_reward_enhancer(make_cfg(policy__nstep=1)), ctx)
    assert ctx.trajectories is batch and 'nstep' not in batch


def test_priority_calculator_feeds_pusher_priority():
    ctx = OnlineRLContext(trajectories=two_segments())
    drive(priority_calculator(lambda b: b.reward * 2), ctx)
    assert ctx.trajectories.priority.tolist() == [2, 4, 6, 8, 20, 40, 60]


def test_ckpt_saver_files(tmp_path, fake_task):
    policy = MockLearnPolicy()
    saver = CkptSaver(policy, str(tmp_path), train_freq=100)
    ctx = OnlineRLContext(train_iter=99)
    drive(saver, ctx)
    assert not (tmp_path / 'ckpt').exists()
    ctx.train_iter, ctx.eval_value = 100, 5.0
    drive(saver, ctx)
    policy.batches.append(None)
    ctx.train_iter, ctx.eval_value = 150, 3.0  # worse: eval.pth.tar stays
    fake_task.finish = True
    drive(saver, ctx)
    assert sorted(os.listdir(tmp_path / 'ckpt')) == ['eval.pth.tar', 'final.pth.tar', 'iteration_100.pth.tar']
    assert torch.load(tmp_path / 'ckpt' / 'eval.pth.tar') == {'updates': 0}
    assert torch.load(tmp_path / 'ckpt' / 'final.pth.tar') == {'updates': 1}


def test_termination_checker(fake_task):
    check = termination_checker(max_env_step=100, max_train_iter=10)
    check(OnlineRLContext(env_step=99, train_iter=9))
    assert not fake_task.finish
    check(OnlineRLContext(env_step=100))
    assert fake_task.finish
    fake_task.finish = False
    check(OfflineRLContext(train_iter=10))
    assert fake_task.finish


def test_termination_checker_declares_only_the_counters_it_has_a_budget_for():
    assert termination_checker(max_train_iter=10).reads == ('train_iter',)  # offline: no env_step to read
    assert termination_checker(max_env_step=5).reads == ('env_step',)


def test_final_ctx_saver_writes_counters_at_finish(tmp_path, fake_task):
    saver = final_ctx_saver(str(tmp_path))
    ctx = OnlineRLContext(env_step=64, train_iter=40, env_episode=3, last_eval_value=12.5, last_eval_iter=40)
    drive(saver, ctx)
    assert not (tmp_path / 'final_ctx.json').exists()
    fake_task.finish = True
    drive(saver, ctx)
    data = json.loads((tmp_path / 'final_ctx.json').read_text())
    assert data == {'total_step': 0, 'env_step': 64, 'env_episode': 3, 'train_iter': 40, 'last_eval_iter': 40,
                    'last_eval_value': 12.5, 'eval_value': None, 'env_restarts': 0, 'dropped_episodes': 0,
                    'eval_env_restarts': 0, 'eval_dropped_episodes': 0}


def test_online_logger_writes_scalars(monkeypatch):
    from ding.framework.middleware import _common
    logged = []

    class Writer:

        def add_scalar(self, tag, value, step):
            logged.append((tag, value, step))

    monkeypatch.setattr(_common, 'get_writer', lambda: Writer())
    log = online_logger(train_show_freq=10)
    log(OnlineRLContext(env_step=8, eval_value=20.0, train_output=[{'total_loss': 1.0}, {'total_loss': 3.0}]))
    log(OnlineRLContext(env_step=16, train_output=[{'total_loss': 5.0}]))  # within 10 env steps: skipped
    assert logged == [('basic/eval_episode_return_mean-env_step', 20.0, 8), ('basic/train_total_loss-env_step', 2.0, 8)]


def test_online_logger_without_writer_is_a_noop(monkeypatch):
    from ding.framework.middleware import _common
    monkeypatch.setattr(_common, 'get_writer', lambda: None)
    online_logger()(OnlineRLContext(eval_value=1.0))


def test_exchangers_are_noops_without_router(fake_task):
    ctx = OnlineRLContext(env_step=3)
    for mw in (ContextExchanger(skip_n_iter=1), ModelExchanger(torch.nn.Linear(1, 1)), Barrier(2)):
        mw(ctx)
    assert ctx.env_step == 3
    fake_task.router.is_active = True  # distributed: the Ray-backed exchangers (tests/distributed)
    from ding.framework.onion import void
    fake_task.roles, fake_task.void = set(), void
    assert ContextExchanger().__name__ == '_void'  # no role declared: nothing to exchange


def test_epoch_timer_passes_through():
    ctx = OnlineRLContext()
    drive(epoch_timer(print_per=1), ctx)
    assert ctx.total_step == 0


def test_offline_fetcher_counts_epochs():
    dataset = [{'obs': np.float32(i)} for i in range(6)]
    fetch = offline_data_fetcher(make_cfg(), dataset)
    ctx = OfflineRLContext()
    for _ in range(3):
        fetch(ctx)
    assert ctx.train_epoch == 1 and ctx.trained_env_step == 4 + 2 + 4 and len(ctx.train_data) == 4


def test_offline_saver_and_buffer_saver(tmp_path):
    path = str(tmp_path / 'data.pt')
    ctx = OnlineRLContext(trajectories=two_segments())
    offline_data_saver(path, data_type='naive')(ctx)
    from ding.data.offline_dataset import load_naive
    assert load_naive(path)['reward'].tolist() == [1, 2, 3, 4, 10, 20, 30]
    assert ctx.trajectories is None
    buffer_ = DequeBuffer(size=10)
    buffer_.push(two_segments())
    cfg = make_cfg(exp_name=str(tmp_path / 'exp'))
    save = buffer_saver(cfg, buffer_, every_envstep=100)
    for step in (50, 100, 150, 200):
        save(OnlineRLContext(env_step=step))
    # DI-engine's rule: the first call saves, then every `every_envstep` env steps
    assert sorted(os.listdir(tmp_path / 'exp' / 'replaybuffer')) == ['data_envstep_150.hkl', 'data_envstep_50.hkl']


def test_metric_evaluator_mean_and_stop(fake_task):
    from ding.framework.middleware import metric_evaluator

    class Accuracy:

        def eval(self, output, label):
            return float(output == label)

        def reduce_mean(self, values):
            return sum(values) / len(values)

        def gt(self, a, b):
            return a >= b

    class Identity:

        def forward(self, x):
            return x

    dataset = [(1, 1), (2, 2), (3, 0), (4, 4)]
    evaluate = metric_evaluator(make_cfg(env__stop_value=0.75), Identity(), dataset, Accuracy())
    ctx = OnlineRLContext()
    evaluate(ctx)
    assert ctx.eval_value == 0.75 and ctx.last_eval_iter == 0 and not fake_task.finish
    ctx.train_iter = 10
    evaluate(ctx)
    assert fake_task.finish


def test_wandb_logger_names_the_missing_package(monkeypatch):
    import sys
    from ding.framework.middleware import wandb_online_logger
    monkeypatch.setitem(sys.modules, 'wandb', None)
    with pytest.raises(ImportError, match='pip install wandb'):
        wandb_online_logger()


def test_data_pusher_priority_column_becomes_buffer_priority():
    from ding.framework.middleware import data_pusher
    buffer_ = DequeBuffer(size=10)
    batch = two_segments()
    batch['priority'] = np.arange(7, dtype=np.float32)
    ctx = OnlineRLContext(trajectories=batch)
    drive(data_pusher(make_cfg(), buffer_, group_by_env=False), ctx)
    sampled = buffer_.sample(7)
    assert 'priority' not in sampled.batch
    assert sorted(float(m['priority']) for m in sampled.row_meta) == [0, 1, 2, 3, 4, 5, 6]
