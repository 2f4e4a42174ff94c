"""Which stages say they wait outside the GIL (contract.py): a collector whose envs step in
other processes, a learner on a GPU. Async mode overlaps steps only when one does."""
from types import SimpleNamespace

import gymnasium as gym
import torch
from easydict import EasyDict

from ding.data.buffer.deque_buffer import DequeBuffer
from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.envs.env_manager.envpool_env_manager import EnvPoolEnvManager
from ding.envs.env_manager.subprocess_env_manager import SubprocessEnvManagerV2
from ding.envs.env_manager.worker_inference import WorkerInferenceSampler
from ding.framework.contract import waits_outside_gil
from ding.framework.middleware import OffPolicyLearner, StepCollector, _common, trainer
from ding.model import DQN
from ding.policy import DQNPolicy


def cartpole():
    return DingEnvWrapper(gym.make('CartPole-v1'))


def dqn_policy():
    cfg = DQNPolicy.default_config()
    cfg.model = dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[16])
    return DQNPolicy(cfg, model=DQN(**cfg.model))


def test_env_managers_say_where_their_envs_step():
    assert BaseEnvManagerV2.envs_step_outside_gil is False
    assert SubprocessEnvManagerV2.envs_step_outside_gil is True
    assert WorkerInferenceSampler.envs_step_outside_gil is True
    assert EnvPoolEnvManager.envs_step_outside_gil is True
    assert _common.envs_step_outside_gil(SimpleNamespace()) is True  # a manager that does not say: it may


def test_collector_contract_follows_its_env_manager(fake_task):
    policy = dqn_policy()
    cfg = EasyDict(seed=0, policy=policy.cfg)
    in_process = BaseEnvManagerV2([cartpole, cartpole], BaseEnvManagerV2.default_config())
    in_workers = SubprocessEnvManagerV2([cartpole, cartpole], SubprocessEnvManagerV2.default_config())
    try:
        assert waits_outside_gil(StepCollector(cfg, policy.collect_mode, in_process)) is False
        assert waits_outside_gil(StepCollector(cfg, policy.collect_mode, in_workers)) is True
    finally:
        in_process.close()
        in_workers.close()


def test_learner_contract_follows_the_policy_device(fake_task):
    policy = dqn_policy()
    cfg = EasyDict(seed=0, policy=policy.cfg)
    assert policy.learn_mode.device == torch.device('cpu')
    assert waits_outside_gil(OffPolicyLearner(cfg, policy.learn_mode, DequeBuffer(size=10))) is False
    assert waits_outside_gil(trainer(cfg, policy.learn_mode)) is False
    on_gpu = SimpleNamespace(device=torch.device('cuda'), forward=lambda data: {})
    assert waits_outside_gil(trainer(cfg, on_gpu)) is True
    assert waits_outside_gil(trainer(cfg, SimpleNamespace(forward=lambda data: {}))) is True  # says no device
