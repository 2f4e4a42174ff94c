"""DI-engine 0.5.3 under the comparison protocol, at its own dizoo configs.

Runs inside the `di_engine` venv (venvs.py). The pipelines are those of DI-engine's
`ding/example/dqn.py`, `ppo.py` and `sac.py`, on the configs those programs import
(`dizoo/classic_control/cartpole/config/cartpole_{dqn,ppo}_config.py`,
`dizoo/classic_control/pendulum/config/pendulum_sac_config.py`), with three changes, as in our
own runner: the env is the benchmark's (CartPole-v1 where the CartPole examples make
CartPole-v0), `interaction_evaluator` is replaced by the protocol's evaluator at the head of the
chain, and the logger and checkpoint middleware are left out (no framework writes logs or
checkpoints in this comparison). DI-engine's SAC acts in [-1, 1] and its Pendulum env scales the
action (`act_scale`); the protocol's plain env gets the action scaled the same way.
"""
import tempfile
from typing import Any, Callable, Dict, Tuple

import numpy as np

from protocol import ProtocolEvaluator, parse_runner_args, set_torch_threads

# algo -> the dizoo config module DI-engine's example program of that algorithm imports
CONFIGS = {
    'dqn': 'dizoo.classic_control.cartpole.config.cartpole_dqn_config',
    'ppo': 'dizoo.classic_control.cartpole.config.cartpole_ppo_config',
    'sac': 'dizoo.classic_control.pendulum.config.pendulum_sac_config',
}


def load_config(algo: str, seed: int, exp_name: str) -> Tuple[Any, Dict[str, Any]]:
    """The compiled config, and the user-level values that set it (recorded in the log)."""
    import copy
    import importlib

    from ding.config import compile_config
    if algo not in CONFIGS:
        raise ValueError(f'di_engine runner has no algorithm {algo!r}; known: {sorted(CONFIGS)}')
    module = importlib.import_module(CONFIGS[algo])
    main_config = copy.deepcopy(module.main_config)
    main_config.exp_name = exp_name
    hyperparameters = dict(config=CONFIGS[algo], policy=_plain(main_config.policy), env=_plain(main_config.env))
    cfg = compile_config(main_config, create_cfg=copy.deepcopy(module.create_config), auto=True, seed=seed,
                         save_cfg=False)
    return cfg, hyperparameters


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


def make_envs(algo: str, env_id: str, cfg: Any, seed: int) -> Any:
    """The collector env manager, as the example program builds it."""
    from ding.envs import BaseEnvManagerV2, DingEnvWrapper
    if algo == 'sac':
        from dizoo.classic_control.pendulum.envs.pendulum_env import PendulumEnv
        env_fn = [lambda: PendulumEnv(cfg.env) for _ in range(cfg.env.collector_env_num)]
    else:
        import gym
        env_fn = [lambda: DingEnvWrapper(gym.make(env_id)) for _ in range(cfg.env.collector_env_num)]
    manager = BaseEnvManagerV2(env_fn=env_fn, cfg=cfg.env.manager)
    manager.seed(seed)
    return manager


def build_pipeline(algo: str, cfg: Any, collector_env: Any) -> Tuple[Any, list]:
    """(policy, the middleware after the evaluator) of DI-engine's example program for `algo`."""
    from ding.data import DequeBuffer
    from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler,
                                           gae_estimator, multistep_trainer)
    from ding.model import DQN, VAC, ContinuousQAC
    from ding.policy import DQNPolicy, PPOPolicy, SACPolicy
    if algo == 'dqn':
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
        policy = DQNPolicy(cfg.policy, model=DQN(**cfg.policy.model))
        return policy, [eps_greedy_handler(cfg), StepCollector(cfg, policy.collect_mode, collector_env),
                        data_pusher(cfg, buffer_), OffPolicyLearner(cfg, policy.learn_mode, buffer_)]
    if algo == 'ppo':
        policy = PPOPolicy(cfg.policy, model=VAC(**cfg.policy.model))
        return policy, [StepCollector(cfg, policy.collect_mode, collector_env), gae_estimator(cfg, policy.collect_mode),
                        multistep_trainer(policy.learn_mode, log_freq=10 ** 9)]
    buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
    policy = SACPolicy(cfg.policy, model=ContinuousQAC(**cfg.policy.model))
    return policy, [StepCollector(cfg, policy.collect_mode, collector_env,
                                  random_collect_size=cfg.policy.random_collect_size),
                    data_pusher(cfg, buffer_), OffPolicyLearner(cfg, policy.learn_mode, buffer_)]


def greedy(policy: Any, algo: str, cfg: Any) -> Callable[[np.ndarray], Any]:
    """DI-engine's eval-mode action for one observation (its `{env_id: obs}` form)."""
    import torch
    # the dizoo Pendulum env maps the policy's [-1, 1] onto the action space when act_scale is on
    scale = 2.0 if algo == 'sac' and cfg.env.get('act_scale', False) else 1.0

    def act(obs: np.ndarray) -> Any:
        out = policy.eval_mode.forward({0: torch.as_tensor(np.asarray(obs), dtype=torch.float32)})
        action = out[0]['action'].detach().cpu().numpy()
        return action * scale if algo == 'sac' else action

    return act


def main() -> None:
    args = parse_runner_args()
    set_torch_threads(args.torch_threads)
    import ding
    import torch
    from ding.framework import ding_init, task
    from ding.framework.context import OnlineRLContext
    from ding.utils import set_pkg_seed

    algo, env_id = args.spec.algo, args.spec.env_id
    cfg, hyperparameters = load_config(algo, args.seed, tempfile.mkdtemp(prefix='di_engine_run_'))
    ding_init(cfg)
    info = dict(versions={'di_engine': ding.__version__, 'torch': torch.__version__},
                hyperparameters=hyperparameters, torch_threads=torch.get_num_threads())
    evaluator = ProtocolEvaluator(args, 'di_engine', info)
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        collector_env = make_envs(algo, env_id, cfg, args.seed)
        set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
        policy, stages = build_pipeline(algo, cfg, collector_env)
        act = greedy(policy, algo, cfg)

        def protocol_evaluator(ctx: Any) -> None:  # where the example program's evaluator stands
            if evaluator.step(ctx.env_step, act):
                task.finish = True

        task.use(protocol_evaluator)
        for stage in stages:
            task.use(stage)
        evaluator.start()
        task.run()
        env_steps = task.ctx.env_step
        collector_env.close()
    evaluator.finish(env_steps, act)


if __name__ == '__main__':
    main()
