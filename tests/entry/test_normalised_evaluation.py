"""A config whose envs normalise their own observations (`obs_norm` / `reward_norm` in
`env.env_wrapper`): `ding train`'s evaluator acts on the collector's statistics, frozen, rather
than on raw observations (its envs' own normalisers see no training data)."""
import copy

import numpy as np
from easydict import EasyDict

from ding.config import compile_config
from ding.entry.pipeline import RunOptions, build_parts, normalises_in_env, run_training
from ding.envs.env_wrappers.norm_sync import stats_wrappers


def test_normalises_in_env_reads_the_wrapper_specs():
    assert normalises_in_env(EasyDict(env={'env_wrapper': [{'type': 'obs_norm', 'kwargs': {'warmup': 0}}]}))
    assert normalises_in_env(EasyDict(env={'env_wrapper': ['reward_norm']}))
    assert not normalises_in_env(EasyDict(env={'env_wrapper': [{'type': 'action_repeat'}]}))
    assert not normalises_in_env(EasyDict(env={'env_wrapper': 'default', 'env_id': 'Pendulum-v1'}))


def test_the_evaluator_acts_on_the_collectors_statistics(tmp_path):
    from dizoo.classic_control.pendulum.config import pendulum_ppo_config as module
    main, create = EasyDict(copy.deepcopy(module.main_config)), EasyDict(copy.deepcopy(module.create_config))
    main.exp_name = str(tmp_path / 'run')
    main.env.update(collector_env_num=1, evaluator_env_num=1, n_evaluator_episode=1,
                    env_wrapper=[{'type': 'obs_norm', 'kwargs': {'warmup': 0}}])
    main.policy.collect.n_sample = 256
    main.policy.eval.evaluator.eval_freq = 1  # an evaluation at every step
    cfg = compile_config(main, create_cfg=create, auto=True, seed=0, save_cfg=False)
    parts = build_parts(cfg)
    seen = []

    def after_eval(ctx):
        collector, evaluator = (stats_wrappers(env._envs[0])[0] for env in (parts.collector_env, parts.evaluator_env))
        seen.append((ctx.env_step, collector.rms.count, evaluator.rms.count, evaluator.frozen,
                     np.allclose(evaluator.rms.mean, collector.rms.mean, rtol=1e-6)))

    try:
        run_training(cfg, parts, RunOptions(max_env_step=768, progress=False, after_eval=(after_eval, )))
    finally:
        parts.close()
    # at each step's evaluation the evaluator holds what the collector had seen so far, frozen (the
    # merge of the statistics re-weighs their starting epsilon count: equal to rounding)
    assert [(step, round(c), round(e)) for step, c, e, _, _ in seen] == [(0, 0, 0), (256, 256, 256), (512, 512, 512)]
    assert all(frozen and same for *_, frozen, same in seen)
