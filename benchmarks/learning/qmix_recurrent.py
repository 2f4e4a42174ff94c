"""Recurrent QMIX / VDN (GRU agent network, sequence replay; ding/policy/qmix_recurrent.py) through
the off-policy pipeline, greedy return over env steps:
- `simple_spread`: dizoo/petting_zoo/config/ptz_simple_spread_qmix_config.py (3 agents, 25-step
  episodes; a uniformly random policy scores about -190, a greedy untrained one about -210),
  `--vdn` swaps in `mixer=False` (VDN's sum) on the same 3-agent task;
- `two_step`: the QMIX paper's two-step game (dizoo/matrix_game) with the recurrent policy
  (`collect.unroll_len=4`: windows run over episode ends, the learner resets the GRU there).

The pipeline is DI-engine's (eps_greedy_handler, StepCollector, data_pusher, OffPolicyLearner,
whose fetcher samples windows of `collect.unroll_len` steps of one env) on serial env managers,
one torch thread. After every `--eval-every` env steps, `--eval-episodes` greedy episodes.

    python benchmarks/learning/qmix_recurrent.py simple_spread [--seeds 0] [--max-env-step 30000] [--vdn]
    python benchmarks/learning/qmix_recurrent.py two_step [--seeds 0 1 2] [--max-env-step 1500]
Writes benchmarks/results/qmix_recurrent_<task>[_vdn].json (curves included).
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
from ding.policy import QMIXPolicy
from ding.utils import set_pkg_seed
from ding.utils.fileio import atomic_write_json


def task_setup(name: str, vdn: bool):
    """(user config, create config, env factory, evaluation episodes) of a task."""
    if name == 'simple_spread':
        from dizoo.petting_zoo.config import ptz_simple_spread_qmix_config as module
        from dizoo.petting_zoo.envs.petting_zoo_simple_spread_env import PettingZooEnv
        user = copy.deepcopy(module.main_config)
        user.env.manager = dict(shared_memory=False)
        return user, module.create_config, lambda: PettingZooEnv(user.env), 8
    from dizoo.matrix_game.config import two_step_game_qmix_config as module
    from dizoo.matrix_game.envs.two_step_game_env import TwoStepGameEnv
    user = copy.deepcopy(module.main_config)
    user.policy.collect.unroll_len = 4  # two 2-step episodes per window
    user.policy.collect.n_sample = 8
    user.policy.collect.env_num = user.env.collector_env_num
    user.policy.model.hidden_size_list = [32]
    return user, module.create_config, TwoStepGameEnv, 1


def run(name: str, seed: int, max_env_step: int, vdn: bool = False, eval_every: int = 0) -> dict:
    user, create, make_env, eval_episodes = task_setup(name, vdn)
    if vdn:
        user.policy.model.mixer = False
    cfg = compile_config(user, create_cfg=create, auto=True, seed=seed, save_cfg=False)
    curve, state = [], {'next': 0}
    t0 = time.perf_counter()
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        collector_env = BaseEnvManagerV2([make_env] * cfg.env.collector_env_num, cfg=cfg.env.manager)
        evaluator_env = BaseEnvManagerV2([make_env] * min(eval_episodes, cfg.env.evaluator_env_num),
                                         cfg=cfg.env.manager)
        set_pkg_seed(seed, use_cuda=False)
        policy = QMIXPolicy(cfg.policy)
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)

        def evaluate(ctx):
            if ctx.env_step >= state['next']:
                state['next'] = ctx.env_step + eval_every
                returns = run_episodes(policy.eval_mode, evaluator_env, eval_episodes, 10_000)
                curve.append((int(ctx.env_step), round(float(np.mean(returns)), 2)))
            task.finish = ctx.env_step >= max_env_step

        task.use(evaluate)  # first: the untrained policy's return is the curve's start
        task.use(eps_greedy_handler(cfg))
        task.use(StepCollector(cfg, policy.collect_mode, collector_env))
        task.use(data_pusher(cfg, buffer_))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_, log_freq=0))
        task.run()
        collector_env.close()
        evaluator_env.close()
    return {'seed': seed, 'policy': type(policy).__name__, 'mixer': policy._model.mixer, 'start_return': curve[0][1],
            'final_return': curve[-1][1], 'best_return': max(r for _, r in curve),
            'wall_s': round(time.perf_counter() - t0, 2), 'curve': curve}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('task', choices=['simple_spread', 'two_step'])
    parser.add_argument('--seeds', type=int, nargs='+', default=[0])
    parser.add_argument('--max-env-step', type=int, default=30000)
    parser.add_argument('--eval-every', type=int, default=2000)
    parser.add_argument('--vdn', action='store_true')
    args = parser.parse_args()
    torch.set_num_threads(1)
    runs = [run(args.task, s, args.max_env_step, args.vdn, args.eval_every) for s in args.seeds]
    for r in runs:
        print(f"seed {r['seed']} {r['policy']}({r['mixer']}): start {r['start_return']} -> final "
              f"{r['final_return']} (best {r['best_return']}) in {r['wall_s']} s")
    out = f"benchmarks/results/qmix_recurrent_{args.task}{'_vdn' if args.vdn else ''}.json"
    atomic_write_json(out, {'args': vars(args), 'runs': runs})
    print(json.dumps({r['seed']: r['final_return'] for r in runs}))


if __name__ == '__main__':
    main()
