import math

import numpy as np

import pytest

from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (eps_greedy_handler, eps_greedy_masker, interaction_evaluator,
                                       interaction_evaluator_ttorch)
from ding.framework.middleware.evaluated_weights import round_seed
from ding.framework.middleware.evaluator import episode_quota

from .conftest import MockActingPolicy, MockEnvManager, drive, make_cfg


def test_episode_quota_spreads_evenly():
    assert episode_quota(10, 4).tolist() == [3, 3, 2, 2]
    assert episode_quota(5, 5).tolist() == [1, 1, 1, 1, 1]
    assert episode_quota(2, 3).tolist() == [1, 1, 0]


def test_evaluator_runs_each_envs_share_not_the_first_to_finish(fake_task):
    # env 0 finishes every 2 steps, env 1 every 6: 4 episodes = 2 from each env.
    env = MockEnvManager(lengths=[2, 6])
    policy = MockActingPolicy()
    evaluator = interaction_evaluator(make_cfg(env__n_evaluator_episode=4, env__stop_value=100), policy, env)
    ctx = OnlineRLContext()
    evaluator(ctx)
    # returns: env 0 -> 2 * 1.0, env 1 -> 6 * 2.0
    assert ctx.eval_output['episode_return'] == [2.0, 2.0, 12.0, 12.0]
    assert ctx.eval_value == 7.0 and ctx.last_eval_value == 7.0 and ctx.last_eval_iter == 0
    assert len(env.actions) == 12 and env.seeds == [(0, True)]
    assert policy.calls == [{}] * 12  # greedy: no collect kwargs
    assert not fake_task.finish  # train_iter == 0 never finishes


def test_evaluator_frequency_and_stop_value(fake_task):
    env = MockEnvManager(lengths=[3, 3])
    evaluator = interaction_evaluator(make_cfg(env__n_evaluator_episode=2, env__stop_value=4.5), MockActingPolicy(),
                                      env)
    ctx = OnlineRLContext()
    evaluator(ctx)
    assert ctx.eval_value == 4.5 and not fake_task.finish
    ctx.eval_value, ctx.train_iter = -math.inf, 9
    evaluator(ctx)  # 9 - 0 < eval_freq 10: skipped
    assert ctx.eval_value == -math.inf and ctx.last_eval_iter == 0
    ctx.train_iter = 10
    evaluator(ctx)
    assert ctx.last_eval_iter == 10 and ctx.eval_value == 4.5 and fake_task.finish
    assert env.resets == 2  # launched once, then reset before the second evaluation


def test_evaluator_ttorch_defaults_to_one_episode_per_env(fake_task):
    env = MockEnvManager(lengths=[1, 2, 3])
    evaluator = interaction_evaluator_ttorch(7, MockActingPolicy(), env, stop_value=4.6)
    ctx = OnlineRLContext(train_iter=1)
    evaluator(ctx)
    assert ctx.eval_output['episode_return'] == [1.0, 4.0, 9.0]
    assert env.seeds == [(round_seed(7, 1), True)] and fake_task.finish


def test_evaluator_config_error_names_key():
    cfg = make_cfg()
    del cfg.env['stop_value']
    with pytest.raises(KeyError, match='interaction_evaluator.*stop_value'):
        interaction_evaluator(cfg, MockActingPolicy(), MockEnvManager([1]))


def test_eps_greedy_handler_exp_schedule_and_cleanup():
    handler = eps_greedy_handler(make_cfg())
    ctx = OnlineRLContext(env_step=10000)
    gen = handler(ctx)
    next(gen)
    assert ctx.collect_kwargs['eps'] == pytest.approx(0.1 + 0.85 * math.exp(-1))
    with pytest.raises(StopIteration):
        next(gen)
    assert 'eps' not in ctx.collect_kwargs


def test_eps_greedy_handler_linear_and_bad_type():
    cfg = make_cfg()
    cfg.policy.other.eps.update(type='linear', start=1.0, end=0.2, decay=100)
    ctx = OnlineRLContext(env_step=50)
    gen = eps_greedy_handler(cfg)(ctx)
    next(gen)
    assert ctx.collect_kwargs['eps'] == pytest.approx(0.6)
    cfg.policy.other.eps.type = 'cosine'
    with pytest.raises(ValueError, match='cosine'):
        eps_greedy_handler(cfg)


def test_eps_greedy_masker():
    ctx = OnlineRLContext()
    drive(eps_greedy_masker(), ctx)
    assert ctx.collect_kwargs == {'eps': -1}


class _DroppingEnvManager(MockEnvManager):
    """Like MockEnvManager, but env 0's first episode is dropped (an env restart), flagged as
    the managers flag it: `info['dropped_episode']`, NaN return."""

    def step_batch(self, actions):
        result = super().step_batch(actions)
        if not getattr(self, '_dropped', False) and result.truncated[0] | result.terminated[0]:
            self._dropped = True
            result.episode_return[0] = np.nan
            result.infos[0]['dropped_episode'] = True
        return result


def test_evaluator_replays_an_episode_a_crashed_worker_dropped(fake_task):
    env = _DroppingEnvManager(lengths=[2, 3])
    evaluator = interaction_evaluator(make_cfg(env__n_evaluator_episode=2, env__stop_value=100), MockActingPolicy(),
                                      env)
    ctx = OnlineRLContext()
    evaluator(ctx)
    assert ctx.eval_output['episode_return'] == [2.0, 6.0]  # no NaN, env 0 played a second episode
    assert len(env.actions) == 4
