"""ding (ours) under the comparison protocol, with our dizoo configs.

Runs in the main python (ding installed editable). The pipeline is the spec's section-5
pipeline for the algorithm, as the dizoo entry scripts compose it, with two changes:
`interaction_evaluator` is replaced by the protocol's evaluator (a middleware at the head of
the chain, so it runs between training steps), and the logging / checkpoint middleware is
left out (no peer writes logs or checkpoints in this comparison either).
"""
import argparse
import contextlib
import copy
import importlib
import json
import tempfile
from functools import partial
from typing import Any, Callable, List

import numpy as np

from protocol import ProtocolEvaluator, parse_runner_args, set_torch_threads

# algo -> (dizoo config module, model class, policy class, pipeline kind)
OURS = {
    'dqn': ('dizoo.classic_control.cartpole.config.cartpole_dqn_v1_config', 'DQN', 'DQNPolicy', 'offpolicy'),
    'ppo': ('dizoo.classic_control.cartpole.config.cartpole_ppo_config', 'VAC', 'PPOPolicy', 'onpolicy'),
    'sac': ('dizoo.classic_control.pendulum.config.pendulum_sac_config', 'ContinuousQAC', 'SACPolicy', 'offpolicy'),
    'ppo_hopper': ('dizoo.mujoco.config.hopper_ppo_config', 'VAC', 'PPOPolicy', 'onpolicy'),
    'sac_halfcheetah': ('dizoo.mujoco.config.halfcheetah_sac_config', 'ContinuousQAC', 'SACPolicy', 'offpolicy'),
    'sac_hopper': ('dizoo.mujoco.config.hopper_sac_config', 'ContinuousQAC', 'SACPolicy', 'offpolicy'),
    'td3_halfcheetah': ('dizoo.mujoco.config.halfcheetah_td3_config', 'ContinuousQAC', 'TD3Policy', 'offpolicy'),
    'td3_hopper': ('dizoo.mujoco.config.hopper_td3_config', 'ContinuousQAC', 'TD3Policy', 'offpolicy'),
    # MinAtar: the paper's recipe, which SB3 runs too; then our tuned configs
    'dqn_minatar': ('dizoo.minatar.config.breakout_dqn_paper_config', 'DQN', 'DQNPolicy', 'offpolicy'),
    'qrdqn_minatar': ('dizoo.minatar.config.breakout_qrdqn_paper_config', 'QRDQN', 'QRDQNPolicy', 'offpolicy'),
    'dqn_minatar_tuned': ('dizoo.minatar.config.breakout_dqn_config', 'DQN', 'DQNPolicy', 'offpolicy'),
    'qrdqn_minatar_tuned': ('dizoo.minatar.config.breakout_qrdqn_config', 'QRDQN', 'QRDQNPolicy', 'offpolicy'),
}

# SB3's networks (RL Zoo's hyperparameters use SB3's defaults for these envs) where our dizoo
# config's differ, as overrides of `policy.model`; the harness's OURS_PEER_NET column runs them.
# PPO CartPole: actor and critic of 2 x 64 tanh each (ours: 3 x 64); SAC Pendulum: actor and twin
# critics of 2 x 256 (ours: 2 x 128); TD3 MuJoCo: the zoo's 400 x 300 actor and critics (ours:
# 2 x 256). DQN CartPole and SAC MuJoCo: the same sizes in both, nothing to override.
_ZOO_TD3_NET = {'actor_head_hidden_size': [400, 300], 'critic_head_hidden_size': [400, 300]}
PEER_NETWORK = {
    'ppo': {'actor_head_layer_num': 0, 'critic_head_layer_num': 0},
    'sac': {'actor_head_hidden_size': 256, 'critic_head_hidden_size': 256},
    'td3_halfcheetah': _ZOO_TD3_NET,
    'td3_hopper': _ZOO_TD3_NET,
}


def load_config(config_module: str, env_id: str, seed: int, exp_name: str, override: Any = None) -> Any:
    from ding.config import compile_config
    from ding.utils.dicts import deep_merge
    module = importlib.import_module(config_module)
    main_config = deep_merge(module.main_config, override or {})  # a sweep row (benchmarks/learning/dqn_cartpole_sweep.py)
    main_config.env.env_id = env_id  # e.g. the PPO config keeps DI-engine's CartPole-v0 default
    main_config.exp_name = exp_name
    return compile_config(main_config, create_cfg=copy.deepcopy(module.create_config), auto=True, seed=seed,
                          save_cfg=False)


def make_collector_env(cfg: Any) -> Any:
    """The collector env manager of the config's env type and manager type."""
    from ding.envs import create_env_manager, get_vec_env_setting
    env_cls, collector_cfgs, _ = get_vec_env_setting(cfg.env, eval_=False)
    env = create_env_manager(cfg.env.manager, [partial(env_cls, c) for c in collector_cfgs])
    env.seed(cfg.seed)
    return env


def offpolicy_pipeline(cfg: Any, policy: Any, env: Any) -> List[Callable]:
    from ding.data import DequeBuffer
    from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler,
                                           nstep_reward_enhancer)
    buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
    pipeline = [eps_greedy_handler(cfg)] if 'eps' in cfg.policy.get('other', {}) else []
    pipeline.append(StepCollector(cfg, policy.collect_mode, env,
                                  random_collect_size=cfg.policy.get('random_collect_size', 0)))
    if cfg.policy.get('nstep', 1) > 1:
        pipeline.append(nstep_reward_enhancer(cfg))
    return pipeline + [data_pusher(cfg, buffer_), OffPolicyLearner(cfg, policy.learn_mode, buffer_)]


def onpolicy_pipeline(cfg: Any, policy: Any, env: Any) -> List[Callable]:
    from ding.framework.middleware import StepCollector, gae_estimator, multistep_trainer
    return [StepCollector(cfg, policy.collect_mode, env), gae_estimator(cfg, policy.collect_mode),
            multistep_trainer(policy.learn_mode, log_freq=50)]


PIPELINES = {'offpolicy': offpolicy_pipeline, 'onpolicy': onpolicy_pipeline}


def env_action_mapper(cfg: Any, env_id: str) -> Callable[[np.ndarray], np.ndarray]:
    """Our envs with `act_scale` take actions in [-1, 1] and rescale them to the env's bounds;
    the protocol's eval env is the plain gymnasium env, so the same rescaling is applied here."""
    if not cfg.env.get('act_scale', False):
        return lambda a: a
    import gymnasium as gym
    space = gym.make(env_id).action_space
    low, high = space.low.astype(np.float64), space.high.astype(np.float64)
    return lambda a: low + (np.asarray(a, dtype=np.float64) + 1.0) * 0.5 * (high - low)


def obs_mapper(cfg: Any, collector_env: Any = None) -> Callable[[np.ndarray], np.ndarray]:
    """The protocol's eval env is the plain gymnasium env, so what our envs do to observations
    is done here: MinAtar's grid moved channels first (dizoo/minatar), and an `obs_norm`
    wrapper's normalisation with the collector env's current statistics (read, never updated),
    as SB3's runner does with its VecNormalize."""
    if cfg.env.get('type') == 'minatar':
        return lambda obs: np.moveaxis(np.asarray(obs, dtype=np.float32), -1, 0)
    if collector_env is None or not any(isinstance(spec, dict) and spec.get('type') == 'obs_norm'
                                        for spec in cfg.env.get('env_wrapper') or ()):
        return lambda obs: np.asarray(obs, dtype=np.float32)
    from ding.envs.env_wrappers.norm_sync import stats_wrappers
    from ding.envs.env_wrappers.norm_wrappers import ObsNormWrapper
    if cfg.env.collector_env_num != 1:
        raise ValueError(f'the compare runner reads one collector env\'s obs_norm statistics; this config has '
                         f'{cfg.env.collector_env_num} collector envs')

    def normalised(obs: np.ndarray) -> np.ndarray:
        # the collector launches its envs at its first step, before the first evaluation
        wrapper = next(w for w in stats_wrappers(collector_env._envs[0]) if isinstance(w, ObsNormWrapper))
        return wrapper.observation(np.asarray(obs, dtype=np.float64))

    return normalised


def greedy(policy: Any, to_env_action: Callable, to_obs: Callable = lambda o: np.asarray(o, np.float32)) -> Callable:
    """One observation -> one action through our batched eval path."""
    forward_batch = policy.eval_mode.forward_batch
    return lambda obs: to_env_action(forward_batch(to_obs(obs)[None])['action'][0])


def protocol_middleware(evaluator: ProtocolEvaluator, act: Callable, env_steps: List[int], policy: Any) -> Callable:
    from ding.framework import task
    from ding.framework.contract import contract
    from ding.framework.middleware.evaluated_weights import held_eval_weights

    def _protocol_evaluator(ctx: Any) -> None:
        env_steps[0] = int(ctx.env_step)
        # One weight version for the whole round, as our interaction_evaluator plays it: in
        # async mode the learner of the previous step trains while this stage runs.
        with held_eval_weights(policy):
            reached = evaluator.step(env_steps[0], act)
        if reached:
            task.finish = True

    return contract(_protocol_evaluator, reads=('env_step', ), name='protocol_evaluator')


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument('--async-mode', action='store_true', help="task.start(async_mode=True)")
    p.add_argument('--override', default=None, help='JSON merged into the dizoo main_config (a sweep row)')


def main() -> None:
    args = parse_runner_args(add_arguments=add_arguments)
    set_torch_threads(args.torch_threads)
    import ding.model
    import ding.policy
    import torch
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.utils import set_pkg_seed

    config_module, model_name, policy_name, kind = OURS[args.spec.algo]
    override = json.loads(args.override) if args.override else None
    cfg = load_config(config_module, args.spec.env_id, args.seed, tempfile.mkdtemp(prefix='ding_compare_'), override)
    set_pkg_seed(cfg.seed, use_cuda=False)
    env = make_collector_env(cfg)
    model = getattr(ding.model, model_name)(**cfg.policy.model)
    policy = getattr(ding.policy, policy_name)(cfg.policy, model=model)
    info = dict(versions={'ding': getattr(ding, '__version__', 'dev'), 'torch': torch.__version__},
                hyperparameters={'config': config_module, 'override': override, 'policy': dict(cfg.policy), 'env': dict(cfg.env)},
                torch_threads=torch.get_num_threads(), async_mode=args.async_mode)
    act = greedy(policy, env_action_mapper(cfg, args.spec.env_id), obs_mapper(cfg, env))
    evaluator = ProtocolEvaluator(args, 'ours', _jsonable(info), eval_context=lambda: _eval_reset(policy))
    env_steps = [0]
    with task.start(async_mode=args.async_mode, ctx=OnlineRLContext()):
        task.use(protocol_middleware(evaluator, act, env_steps, policy))
        for middleware in PIPELINES[kind](cfg, policy, env):
            task.use(middleware)
        evaluator.start()
        task.run()
    env.close()
    evaluator.finish(env_steps[0], act)


@contextlib.contextmanager
def _eval_reset(policy: Any):
    policy.eval_mode.reset()
    yield


def _jsonable(x: Any) -> Any:
    """Configs hold tuples, numpy scalars and inf; keep what JSON can say, stringify the rest."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (bool, int, str)) or x is None:
        return x
    if isinstance(x, float):
        return x if np.isfinite(x) else str(x)
    return str(x)


if __name__ == '__main__':
    main()
