"""QMIX vs VDN vs independent Q-learning on the QMIX paper's two-step game
(dizoo/matrix_game/envs/two_step_game_env.py): the greedy return over env steps, per method and
seed. QMIX is known to reach the optimum 8; VDN and independent Q settle for 7.

Each method runs the same off-policy pipeline (StepCollector, data_pusher, OffPolicyLearner with
eps_greedy_handler) from dizoo/matrix_game/config/two_step_game_qmix_config.py; only the mixing
differs: QMIXPolicy with QMix (mixing network), VDNPolicy (sum), QMIXPolicy with
`mixer='none'` (one TD target per agent on the team reward). After every collect, one greedy
episode (the game is deterministic) gives the curve's point.

    python benchmarks/learning/qmix_two_step.py [--seeds 0 1 2] [--max-env-step 6000]
Writes benchmarks/results/qmix_two_step.json: per method, its curves and final returns.
"""
import argparse
import copy
import json
import time

import numpy as np
import torch

from ding.config import compile_config
from ding.data import DequeBuffer
from ding.envs import BaseEnvManagerV2
from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler
from ding.framework.middleware.evaluator import run_episodes
from ding.policy import QMIXPolicy, VDNPolicy
from ding.utils import set_pkg_seed
from ding.utils.fileio import atomic_write_json
from dizoo.matrix_game.config import two_step_game_qmix_config as qmix_cfg
from dizoo.matrix_game.config import two_step_game_vdn_config as vdn_cfg
from dizoo.matrix_game.envs.two_step_game_env import TwoStepGameEnv

METHODS = {
    'qmix': (qmix_cfg, QMIXPolicy, {}),
    'vdn': (vdn_cfg, VDNPolicy, {}),
    'independent_q': (qmix_cfg, QMIXPolicy, {'mixer': 'none'}),
}


def run(method: str, seed: int, max_env_step: int) -> dict:
    module, policy_cls, model_overrides = METHODS[method]
    user = copy.deepcopy(module.main_config)
    user.policy.model.update(model_overrides)
    cfg = compile_config(user, create_cfg=module.create_config, auto=True, seed=seed, save_cfg=False)
    curve = []
    t0 = time.perf_counter()
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        collector_env = BaseEnvManagerV2([TwoStepGameEnv] * cfg.env.collector_env_num, cfg=cfg.env.manager)
        evaluator_env = BaseEnvManagerV2([TwoStepGameEnv], cfg=cfg.env.manager)
        set_pkg_seed(seed, use_cuda=False)
        policy = policy_cls(cfg.policy)
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
        task.use(eps_greedy_handler(cfg))
        task.use(StepCollector(cfg, policy.collect_mode, collector_env))
        task.use(data_pusher(cfg, buffer_))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_, log_freq=0))

        def evaluate(ctx):
            curve.append((int(ctx.env_step), float(np.mean(run_episodes(policy.eval_mode, evaluator_env, 1, 0)))))
            task.finish = ctx.env_step >= max_env_step

        task.use(evaluate)
        task.run()
        collector_env.close()
        evaluator_env.close()
    # first env step from which every later greedy evaluation scored the optimum (None: never)
    stable = next((curve[i][0] for i in range(len(curve)) if all(r == 8.0 for _, r in curve[i:])), None)
    return {'seed': seed, 'final_return': curve[-1][1], 'optimal_from_env_step': stable,
            'wall_s': round(time.perf_counter() - t0, 2), 'curve': curve}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2])
    parser.add_argument('--max-env-step', type=int, default=6000)
    parser.add_argument('--out', default='benchmarks/results/qmix_two_step.json')
    args = parser.parse_args()
    torch.set_num_threads(1)
    result = {'benchmark': 'two-step game (QMIX paper): greedy return, optimum 8', 'max_env_step': args.max_env_step,
              'methods': {}}
    for method in METHODS:
        runs = [run(method, seed, args.max_env_step) for seed in args.seeds]
        finals = [r['final_return'] for r in runs]
        result['methods'][method] = {'final_returns': finals, 'all_optimal': all(f == 8.0 for f in finals),
                                     'optimal_from_env_step': [r['optimal_from_env_step'] for r in runs],
                                     'runs': runs}
        print(f'{method}: final greedy returns {finals}', flush=True)
    atomic_write_json(args.out, result)
    print(json.dumps({m: {k: v for k, v in r.items() if k != 'runs'} for m, r in result['methods'].items()}))


if __name__ == '__main__':
    main()
