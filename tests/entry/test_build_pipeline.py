"""`build_pipeline`: the one place the stages that collect and learn are chosen, for `ding train`,
each role of a distributed run and dizoo's entries."""
import copy

import pytest

from ding.config import compile_config
from ding.entry.pipeline import build_parts, build_pipeline
from ding.framework.contract import middleware_name


def compiled(module, **policy):
    main = copy.deepcopy(module.main_config)
    main.policy.update(policy)
    return compile_config(main, create_cfg=copy.deepcopy(module.create_config), auto=True, seed=0, save_cfg=False)


@pytest.fixture
def dqn_nstep():
    import dizoo.classic_control.cartpole.config.cartpole_dqn_config as module
    cfg = compiled(module, nstep=3)
    parts = build_parts(cfg)
    yield cfg, parts
    parts.close()


def names(stages):
    return [middleware_name(s) for s in stages]


def test_a_distributed_run_splits_the_one_process_pipeline_between_collector_and_learner(dqn_nstep):
    cfg, parts = dqn_nstep
    whole = names(build_pipeline(cfg, parts))
    assert whole == ['eps_greedy', 'StepCollector', 'nstep_reward_enhancer', 'push', 'OffPolicyLearner']
    # the n-step stage stays with the collector: each env's rows are in order there only
    assert names(build_pipeline(cfg, parts, role='collector')) == whole[:3]
    assert names(build_pipeline(cfg, parts, role='learner')) == whole[3:]


def test_on_policy_and_whole_episode_kinds():
    import dizoo.classic_control.cartpole.config.cartpole_ppo_config as module
    cfg = compiled(module)
    parts = build_parts(cfg)
    try:
        assert names(build_pipeline(cfg, parts)) == ['StepCollector', 'gae_estimator', 'train']
        assert names(build_pipeline(cfg, parts, role='learner')) == ['gae_estimator', 'train']
    finally:
        parts.close()
    import dizoo.classic_control.cartpole.config.cartpole_pg_config as module
    cfg = compiled(module)
    parts = build_parts(cfg)
    try:
        assert names(build_pipeline(cfg, parts)) == ['EpisodeCollector', 'montecarlo_return_estimator', 'train']
    finally:
        parts.close()


def test_a_bad_role_or_kind_is_named(dqn_nstep):
    cfg, parts = dqn_nstep
    with pytest.raises(ValueError, match="role must be 'all', 'collector' or 'learner', got 'evaluator'"):
        build_pipeline(cfg, parts, role='evaluator')
    with pytest.raises(ValueError, match="unknown pipeline kind 'offline'"):
        build_pipeline(cfg, parts, 'offline')
