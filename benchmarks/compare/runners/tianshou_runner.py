"""Tianshou under the comparison protocol, with the defaults of its own test scripts.

Runs inside the `tianshou` venv (Tianshou 2.0.x API). Values are the argparse defaults of
tianshou `test/discrete/test_dqn.py`, `test/discrete/test_ppo_discrete.py` and
`test/continuous/test_sac_with_il.py` (the SAC part). Tianshou's own trainer drives training;
its test steps are switched off (no test collector) because the protocol's evaluator replaces
them: the trainer calls `training_fn(epoch, env_step)` before every collection step, which is
where the evaluator runs and where it stops training by raising `_StopTraining`.
"""
import math
from typing import Any, Callable, Dict, Tuple

from protocol import ProtocolEvaluator, parse_runner_args, set_torch_threads

# test/discrete/test_dqn.py defaults (eps_test is Tianshou's test epsilon; the protocol
# evaluates greedily, as for every framework).
TS_DQN = dict(eps_test=0.05, eps_train=0.1, buffer_size=20000, lr=1e-3, gamma=0.9, n_step=3,
              target_update_freq=320, epoch_num_steps=10000, collection_step_num_env_steps=10,
              update_per_step=0.1, batch_size=64, hidden_sizes=[128, 128, 128, 128], num_train_envs=10)
# test/discrete/test_ppo_discrete.py defaults.
TS_PPO = dict(buffer_size=20000, lr=3e-4, gamma=0.99, epoch_num_steps=50000, collection_step_num_env_steps=2000,
              update_step_num_repetitions=10, batch_size=64, hidden_sizes=[64, 64], num_train_envs=20,
              vf_coef=0.5, ent_coef=0.0, eps_clip=0.2, max_grad_norm=0.5, gae_lambda=0.95, return_scaling=False,
              advantage_normalization=False, recompute_adv=False, dual_clip=None, value_clip=False)
# test/continuous/test_sac_with_il.py defaults (SAC stage).
TS_SAC = dict(buffer_size=20000, actor_lr=1e-3, critic_lr=1e-3, gamma=0.99, tau=0.005, auto_alpha=True,
              alpha_lr=3e-4, epoch_num_steps=24000, collection_step_num_env_steps=10, update_per_step=0.1,
              batch_size=128, hidden_sizes=[128, 128], num_train_envs=10, n_step=3)


# What a builder returns: (algorithm, trainer params, hyperparameters, per-collection hook
# (epoch, env_step), prefill() -> env steps collected before the trainer starts).
Built = Tuple[Any, Dict[str, Any], Dict[str, Any], Callable[[int, int], None], Callable[[], int]]


class _StopTraining(Exception):
    """Raised from training_fn to leave Tianshou's trainer when the protocol says stop."""


def _envs(env_id: str, n: int, seed: int) -> Any:
    import gymnasium as gym
    from tianshou.env import DummyVectorEnv
    envs = DummyVectorEnv([lambda: gym.make(env_id) for _ in range(n)])
    envs.seed(seed)
    return envs


def _orthogonal_init(*modules: Any) -> None:
    import torch
    for module in modules:
        for m in module.modules():
            if isinstance(m, torch.nn.Linear):
                torch.nn.init.orthogonal_(m.weight)
                torch.nn.init.zeros_(m.bias)


def build_dqn(env: Any, env_id: str, seed: int) -> Built:
    from tianshou.algorithm import DQN
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.utils.net.common import Net
    hp = TS_DQN
    net = Net(state_shape=env.observation_space.shape, action_shape=env.action_space.n,
              hidden_sizes=hp['hidden_sizes'])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=hp['eps_train'],
                                     eps_inference=hp['eps_test'])
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=hp['lr']), gamma=hp['gamma'],
                    n_step_return_horizon=hp['n_step'], target_update_freq=hp['target_update_freq'])
    envs = _envs(env_id, hp['num_train_envs'], seed)
    collector = Collector(algorithm, envs, VectorReplayBuffer(hp['buffer_size'], len(envs)), exploration_noise=True)

    def anneal_eps(epoch: int, env_step: int) -> None:
        # test_dqn.py's train_fn: eps_train until 10k steps, linear to 0.1 * eps_train at 50k
        if env_step <= 10000:
            policy.set_eps_training(hp['eps_train'])
        elif env_step <= 50000:
            policy.set_eps_training(hp['eps_train'] - (env_step - 10000) / 40000 * (0.9 * hp['eps_train']))
        else:
            policy.set_eps_training(0.1 * hp['eps_train'])

    def prefill() -> int:
        collector.reset()
        return collector.collect(n_step=hp['batch_size'] * hp['num_train_envs']).n_collected_steps

    params = dict(training_collector=collector, epoch_num_steps=hp['epoch_num_steps'],
                  collection_step_num_env_steps=hp['collection_step_num_env_steps'], batch_size=hp['batch_size'],
                  update_step_num_gradient_steps_per_sample=hp['update_per_step'])
    return algorithm, params, hp, anneal_eps, prefill


def build_ppo(env: Any, env_id: str, seed: int) -> Built:
    import torch
    from tianshou.algorithm import PPO
    from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.utils.net.common import Net
    from tianshou.utils.net.discrete import DiscreteActor, DiscreteCritic
    hp = TS_PPO
    net = Net(state_shape=env.observation_space.shape, hidden_sizes=hp['hidden_sizes'])
    actor = DiscreteActor(preprocess_net=net, action_shape=env.action_space.n)
    critic = DiscreteCritic(preprocess_net=net)
    _orthogonal_init(actor, critic)
    policy = DiscreteActorPolicy(actor=actor, dist_fn=torch.distributions.Categorical,
                                 action_space=env.action_space, deterministic_eval=True)
    algorithm = PPO(policy=policy, critic=critic, optim=AdamOptimizerFactory(lr=hp['lr']), gamma=hp['gamma'],
                    max_grad_norm=hp['max_grad_norm'], eps_clip=hp['eps_clip'], vf_coef=hp['vf_coef'],
                    ent_coef=hp['ent_coef'], gae_lambda=hp['gae_lambda'], return_scaling=hp['return_scaling'],
                    dual_clip=hp['dual_clip'], value_clip=hp['value_clip'],
                    advantage_normalization=hp['advantage_normalization'],
                    recompute_advantage=hp['recompute_adv'])
    envs = _envs(env_id, hp['num_train_envs'], seed)
    collector = Collector(algorithm, envs, VectorReplayBuffer(hp['buffer_size'], len(envs)))
    params = dict(training_collector=collector, epoch_num_steps=hp['epoch_num_steps'],
                  collection_step_num_env_steps=hp['collection_step_num_env_steps'], batch_size=hp['batch_size'],
                  update_step_num_repetitions=hp['update_step_num_repetitions'])
    return algorithm, params, hp, lambda epoch, env_step: None, lambda: 0


def build_sac(env: Any, env_id: str, seed: int) -> Built:
    from tianshou.algorithm import SAC
    from tianshou.algorithm.modelfree.sac import AutoAlpha, SACPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.utils.net.common import Net
    from tianshou.utils.net.continuous import ContinuousActorProbabilistic, ContinuousCritic
    hp = TS_SAC
    obs_shape, act_shape = env.observation_space.shape, env.action_space.shape
    actor = ContinuousActorProbabilistic(
        preprocess_net=Net(state_shape=obs_shape, hidden_sizes=hp['hidden_sizes']), action_shape=act_shape,
        unbounded=True)
    critics = [ContinuousCritic(preprocess_net=Net(state_shape=obs_shape, action_shape=act_shape,
                                                   hidden_sizes=hp['hidden_sizes'], concat=True)) for _ in range(2)]
    alpha = AutoAlpha(-float(sum(act_shape)), 0.0, AdamOptimizerFactory(lr=hp['alpha_lr']))
    policy = SACPolicy(actor=actor, action_space=env.action_space)
    algorithm = SAC(policy=policy, policy_optim=AdamOptimizerFactory(lr=hp['actor_lr']), critic=critics[0],
                    critic_optim=AdamOptimizerFactory(lr=hp['critic_lr']), critic2=critics[1],
                    critic2_optim=AdamOptimizerFactory(lr=hp['critic_lr']), tau=hp['tau'], gamma=hp['gamma'],
                    alpha=alpha, n_step_return_horizon=hp['n_step'])
    envs = _envs(env_id, hp['num_train_envs'], seed)
    collector = Collector(algorithm, envs, VectorReplayBuffer(hp['buffer_size'], len(envs)), exploration_noise=True)
    params = dict(training_collector=collector, epoch_num_steps=hp['epoch_num_steps'],
                  collection_step_num_env_steps=hp['collection_step_num_env_steps'], batch_size=hp['batch_size'],
                  update_step_num_gradient_steps_per_sample=hp['update_per_step'])
    return algorithm, params, hp, lambda epoch, env_step: None, lambda: 0


BUILDERS = {'dqn': build_dqn, 'ppo': build_ppo, 'sac': build_sac}


def greedy(policy: Any) -> Callable:
    """Tianshou's own inference path (`compute_action`, which also maps actions to the env's range)."""
    return policy.compute_action


def eval_context(policy: Any) -> Callable:
    """Inference mode for the evaluation: no grad, torch eval mode, deterministic actions."""
    import contextlib
    import torch
    from tianshou.utils.torch_utils import policy_within_training_step, torch_train_mode

    @contextlib.contextmanager
    def ctx():
        with torch.no_grad(), torch_train_mode(policy, False), policy_within_training_step(policy, enabled=False):
            yield
    return ctx


def main() -> None:
    args = parse_runner_args()
    set_torch_threads(args.torch_threads)
    import gymnasium as gym
    import numpy as np
    import tianshou
    import torch
    from tianshou.trainer import OffPolicyTrainerParams, OnPolicyTrainerParams

    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    env = gym.make(args.spec.env_id)
    algorithm, params, hp, training_hook, prefill = BUILDERS[args.spec.algo](env, args.spec.env_id, args.seed)
    info = dict(versions={'tianshou': tianshou.__version__, 'torch': torch.__version__}, hyperparameters=hp,
                torch_threads=torch.get_num_threads())
    evaluator = ProtocolEvaluator(args, 'tianshou', info, eval_context=eval_context(algorithm.policy))
    act = greedy(algorithm.policy)
    params_cls = OnPolicyTrainerParams if args.spec.algo == 'ppo' else OffPolicyTrainerParams
    max_epochs = math.ceil(args.max_env_steps / params['epoch_num_steps']) + 1
    env_steps = 0

    evaluator.start()
    prefilled = prefill()

    def training_fn(epoch: int, trainer_env_step: int) -> None:
        nonlocal env_steps
        env_steps = prefilled + trainer_env_step
        training_hook(epoch, trainer_env_step)
        if evaluator.step(env_steps, act):
            raise _StopTraining

    trainer_params = params_cls(max_epochs=max_epochs, training_fn=training_fn, test_collector=None,
                                verbose=False, show_progress=False, **params)
    try:
        algorithm.run_training(trainer_params)
    except _StopTraining:
        pass
    evaluator.finish(env_steps, act)


if __name__ == '__main__':
    main()
