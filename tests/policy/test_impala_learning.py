"""IMPALA end to end (slow): DI-engine's `cartpole_impala_config` reaches 195 on CartPole-v0 with
the middleware of DI-engine's `ding/example/impala.py` (StepCollector -> data_pusher grouped
by env -> OffPolicyLearner sampling 8-step windows) in async mode, the collector's envs in
subprocess workers so that the steps overlap (in this process they would run as in sync mode:
async_pipeline.why_sync). Through `ding train`
(the tuned pair on the same config) it is tests/learning/test_tuned_pairs.py's.

DI-engine 0.5.3's `ding/example/impala.py` itself trains LunarLander (its config is
dizoo/box2d/lunarlander/config/lunarlander_impala_config.py) to `max_env_step=2e6` with an
unreachable stop value (3000): it runs here unchanged (gym -> gymnasium) at about 1,000 env
steps/s on the 2-core dev machine, i.e. ~35 minutes, too long for a test.

Async runs are not repeatable: thread scheduling decides which weights act on which steps. On a
quiet machine this run stops at 195 after 13k-19k env steps, with both cores busy 13k-32k; one CI
run (2 test workers) was at 131 after 40k. The budget is 80k env steps for that tail; the
threshold is the config's stop value, unchanged."""
import pytest


@pytest.mark.slow
def test_impala_reaches_195_on_cartpole_v0_in_async_mode(tmp_path):
    import gymnasium as gym
    from ding.config import compile_config
    from ding.data import DequeBuffer
    from ding.envs import BaseEnvManagerV2, DingEnvWrapper, SubprocessEnvManagerV2
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher, interaction_evaluator,
                                           termination_checker)
    from ding.policy import IMPALAPolicy
    from ding.utils import set_pkg_seed
    from dizoo.classic_control.cartpole.config.cartpole_impala_config import create_config, main_config

    cfg = compile_config(dict(main_config, exp_name=str(tmp_path / 'impala')), create_cfg=create_config, auto=True)
    with task.start(async_mode=True, ctx=OnlineRLContext()):
        assert task.async_mode
        make = lambda: DingEnvWrapper(gym.make('CartPole-v0'))  # noqa: E731
        collector_env = SubprocessEnvManagerV2([make for _ in range(cfg.env.collector_env_num)])
        evaluator_env = BaseEnvManagerV2([make for _ in range(cfg.env.evaluator_env_num)], cfg.env.manager)
        set_pkg_seed(cfg.seed, use_cuda=False)
        policy = IMPALAPolicy(cfg.policy)
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size,
                              sliced=cfg.policy.other.replay_buffer.sliced)
        task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
        task.use(StepCollector(cfg, policy.collect_mode, collector_env))
        task.use(data_pusher(cfg, buffer_, group_by_env=True))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
        task.use(termination_checker(max_env_step=80_000))
        with collector_env:  # its workers end with the test
            task.run()
        ctx = task.ctx
    assert ctx.last_eval_value >= 195 and ctx.env_step <= 80_000 + 128
