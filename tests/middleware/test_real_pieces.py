"""The middleware with the real env manager, buffer and DQN policy (no mocks)."""
import gymnasium as gym
import torch
from easydict import EasyDict

from ding.data.buffer.deque_buffer import DequeBuffer
from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import CkptSaver, OffPolicyLearner, StepCollector, data_pusher
from ding.framework.middleware.evaluator import run_episodes
from ding.model import DQN
from ding.policy import DQNPolicy


def cartpole_envs(n):
    return BaseEnvManagerV2(env_fn=[lambda: DingEnvWrapper(gym.make('CartPole-v1')) for _ in range(n)],
                            cfg=BaseEnvManagerV2.default_config())


def make_policy():
    torch.manual_seed(0)
    cfg = DQNPolicy.default_config()
    cfg.model = dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[32, 32])
    return DQNPolicy(cfg, model=DQN(**cfg.model))


def test_collect_push_learn_then_checkpoint_reproduces_returns(tmp_path, fake_task):
    policy = make_policy()
    cfg = EasyDict(seed=0, policy=policy.cfg)
    env, buffer_ = cartpole_envs(4), DequeBuffer(size=1000)
    collector, pusher = StepCollector(cfg, policy.collect_mode, env), data_pusher(cfg, buffer_)
    learner = OffPolicyLearner(cfg, policy.learn_mode, buffer_)
    ctx = OnlineRLContext(collect_kwargs={'eps': 0.5})
    for _ in range(10):
        collector(ctx)
        pusher(ctx)
        learner(ctx)
    assert ctx.env_step == 80 and buffer_.count() == 80
    assert ctx.train_iter == 3 * policy.cfg.learn.update_per_collect  # buffer reaches 64 at step 8
    CkptSaver(policy, str(tmp_path)).save('final.pth.tar')
    fresh = make_policy()
    fresh.learn_mode.load_state_dict(torch.load(tmp_path / 'ckpt' / 'final.pth.tar', weights_only=False))
    eval_env = cartpole_envs(2)
    trained = run_episodes(policy.eval_mode, eval_env, 4, seed=5)
    assert run_episodes(fresh.eval_mode, eval_env, 4, seed=5) == trained
    assert run_episodes(policy.eval_mode, eval_env, 4, seed=5) == trained  # evaluations repeat exactly
    env.close()
    eval_env.close()
