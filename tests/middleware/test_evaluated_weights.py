"""What an evaluation round plays and what it leaves: new start states each round (the same
after a resume), `eval.pth.tar` with exactly the evaluated weights, tensorboard flushed at
every checkpoint."""
import glob

import pytest
import torch
from easydict import EasyDict

from ding.data.buffer.deque_buffer import DequeBuffer
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (CkptSaver, OffPolicyLearner, RunStateSaver, StepCollector, data_pusher,
                                       interaction_evaluator)
from ding.framework.middleware.evaluated_weights import held_eval_weights, round_seed
from ding.utils.writer import get_writer, init_writer

from .conftest import MockActingPolicy, MockEnvManager, drive, make_cfg
from .test_real_pieces import cartpole_envs, make_policy


def test_each_round_gets_new_start_states_and_resume_replays_them(fake_task):
    cfg = make_cfg(env__n_evaluator_episode=2, env__stop_value=100)
    env = MockEnvManager(lengths=[3, 3])
    evaluator = interaction_evaluator(cfg, MockActingPolicy(), env)
    ctx = OnlineRLContext()
    for train_iter in (0, 10, 20, 30):
        ctx.train_iter = train_iter
        evaluator(ctx)
    seeds = [s for s, _ in env.seeds]
    assert seeds[0] == cfg.seed and len(set(seeds)) == 4
    assert all(abs(a - b) >= 2 for i, a in enumerate(seeds) for b in seeds[i + 1:])  # env i gets seed + i
    # A resumed run's evaluator is new, but train_iter (restored) names the same rounds.
    resumed_env = MockEnvManager(lengths=[3, 3])
    resumed = interaction_evaluator(cfg, MockActingPolicy(), resumed_env)
    resumed(OnlineRLContext(train_iter=20, last_eval_iter=10))
    assert resumed_env.seeds == [(seeds[2], True)] == [(round_seed(cfg.seed, 20), True)]


def test_held_eval_weights_ignore_a_publish_inside_the_round():
    policy = make_policy()
    with held_eval_weights(policy.eval_mode) as evaluated_weights:
        before = {k: v.clone() for k, v in policy.acting_model('eval').state_dict().items()}
        with torch.no_grad():
            for p in policy._model.parameters():
                p.add_(1.0)
        policy.publish_weights()  # a learner in another thread
        held = policy.acting_model('eval').state_dict()
        assert all(torch.equal(held[k], before[k]) for k in before)
        saved = evaluated_weights()
    assert list(saved) == ['model']  # the learner moved on: its optimizer state is of other weights
    assert all(torch.equal(saved['model'][k], before[k]) for k in before)
    refreshed = policy.acting_model('eval').state_dict()
    assert not any(torch.equal(refreshed[k], before[k]) for k in before)
    with held_eval_weights(MockActingPolicy()) as evaluated_weights:  # a user's policy: nothing to keep
        assert evaluated_weights() is None


def test_eval_ckpt_holds_the_evaluated_weights_not_the_updated_ones(tmp_path, fake_task):
    """evaluator -> collector -> learner -> CkptSaver in one step: the learner updates after the
    evaluation, and eval.pth.tar must still hold what was evaluated."""
    policy = make_policy()
    cfg = EasyDict(seed=0, env=dict(n_evaluator_episode=2, stop_value=1e9), policy=policy.cfg)
    cfg.policy.eval.evaluator.eval_freq = 1
    collector_env, eval_env, buffer_ = cartpole_envs(2), cartpole_envs(2), DequeBuffer(size=1000)
    pieces = [
        interaction_evaluator(cfg, policy.eval_mode, eval_env),
        StepCollector(cfg, policy.collect_mode, collector_env, random_collect_size=128),
        data_pusher(cfg, buffer_),
        OffPolicyLearner(cfg, policy.learn_mode, buffer_),
    ]
    saver = CkptSaver(policy, str(tmp_path))
    ctx = OnlineRLContext()
    try:
        for _ in range(20):
            weights_before_step = {k: v.clone() for k, v in policy._model.state_dict().items()}
            for mw in pieces:
                drive(mw, ctx)
            if 'evaluated_state' in ctx.eval_output:  # a new best: eval.pth.tar is written this step
                drive(saver, ctx)
                assert ctx.train_iter > 0 and ctx.train_output  # the learner did update after the evaluation
                checkpoint = torch.load(tmp_path / 'ckpt' / 'eval.pth.tar', weights_only=False)
                assert {'model', 'target_model', 'optimizer', 'learn_step'} <= set(checkpoint)  # the learner state then
                assert checkpoint['learn_step'] < policy._learn_step
                saved = checkpoint['model']
                assert all(torch.equal(saved[k], weights_before_step[k]) for k in saved)
                assert not all(torch.equal(saved[k], policy._model.state_dict()[k]) for k in saved)
                break
            ctx = ctx.renew()
        else:
            raise AssertionError('no new best evaluation after training started')
    finally:
        collector_env.close()
        eval_env.close()
    # `ding eval` and the agents load it into a fresh policy as before
    fresh = make_policy()
    fresh.learn_mode.load_state_dict(torch.load(tmp_path / 'ckpt' / 'eval.pth.tar', weights_only=False))


def _logged_tags(logdir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    acc = EventAccumulator(logdir)
    acc.Reload()
    return acc.Tags()['scalars']


@pytest.mark.parametrize('checkpoint', ['CkptSaver', 'RunStateSaver'])
def test_checkpoints_flush_tensorboard(tmp_path, fake_task, checkpoint):
    """An evaluation logged before a checkpoint is on disk with it (a kill right after
    loses nothing that the resumed run will not log again)."""
    init_writer(str(tmp_path / 'log'))
    try:
        get_writer().add_scalar('basic/eval_episode_return_mean-env_step', 1.0, 10)
        if checkpoint == 'CkptSaver':
            CkptSaver(make_policy(), str(tmp_path)).save('iteration_1.pth.tar')
        else:
            RunStateSaver(str(tmp_path), make_policy(), every_env_step=1).save(OnlineRLContext())
        assert glob.glob(str(tmp_path / 'log' / 'events.*'))
        assert _logged_tags(str(tmp_path / 'log')) == ['basic/eval_episode_return_mean-env_step']
    finally:
        get_writer().close()


def test_ckpt_saver_state_keeps_the_best_across_a_resume(tmp_path, fake_task):
    policy = make_policy()
    saver = CkptSaver(policy, str(tmp_path), train_freq=10)
    drive(saver, OnlineRLContext(train_iter=10, eval_value=50.0))
    resumed = CkptSaver(policy, str(tmp_path), train_freq=10)
    resumed.load_state_dict(saver.state_dict())
    (tmp_path / 'ckpt' / 'eval.pth.tar').unlink()
    drive(resumed, OnlineRLContext(train_iter=15, eval_value=20.0))  # worse than the run's best: not written
    assert sorted(p.name for p in (tmp_path / 'ckpt').iterdir()) == ['iteration_10.pth.tar']
