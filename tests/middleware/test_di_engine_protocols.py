"""DI-engine-style policies and env managers in our middleware (ding/compat/policy.py,
ding/compat/env_manager_adapter.py): detected once, driven through DI-engine's own hooks, and
a policy plus env written only against DI-engine's protocols learns CartPole."""
import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.data import DequeBuffer
from ding.envs import BaseEnvManagerV2
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (EpisodeCollector, OffPolicyLearner, StepCollector, data_pusher,
                                       eps_greedy_handler, interaction_evaluator)
from ding.policy import DQNPolicy, Policy
from ding.policy.policy_modes import CollectMode, LearnMode
from ding.compat.policy import DIEngineCollectMode, DIEngineEvalMode, DIEngineLearnMode
from ding.utils import set_pkg_seed

from .conftest import drive
from .di_engine_style import DIStyleCartPoleEnv, DIStyleDQNPolicy, DIStyleEnvManager

MODEL = dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[128, 128, 64], dueling=True)


@pytest.fixture
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny nets on a shared 2-core machine
    yield
    torch.set_num_threads(threads)


def make_cfg(**policy):
    cfg = EasyDict(seed=0, env=dict(collector_env_num=4, evaluator_env_num=3, n_evaluator_episode=3, stop_value=195,
                                    manager=dict()),
                   policy=dict(DIStyleDQNPolicy.config, model=MODEL))
    cfg.policy.update(policy)
    return cfg


def make_policy(cfg):
    policy = DIStyleDQNPolicy(cfg.policy)
    cfg.policy = policy.cfg
    return policy


def test_detected_once_and_our_policies_keep_the_fast_path():
    policy = make_policy(make_cfg())
    assert DIStyleDQNPolicy._di_engine_protocol
    # ding's own policies subclass the core Policy, which has no notion of the protocol
    assert not issubclass(DQNPolicy, Policy) and not hasattr(DQNPolicy, '_di_engine_protocol')
    assert isinstance(policy.collect_mode, DIEngineCollectMode)
    assert isinstance(policy.eval_mode, DIEngineEvalMode)
    assert isinstance(policy.learn_mode, DIEngineLearnMode)
    assert type(DQNPolicy(EasyDict(model=MODEL)).collect_mode) is CollectMode
    # default_model() named ('dqn', [...]): built from cfg.model; _init_collect set its own acting model
    assert policy._collect_model is policy._model and policy._eval_model is policy._model
    assert not policy._cuda and policy._rank == 0



def test_a_user_subclass_written_our_way_runs_our_modes_and_di_engine_path_names_the_same_class():
    import importlib

    class OursStyle(Policy):  # no _process_transition: our protocol

        def default_model(self):
            return torch.nn.Linear(4, 2)

        def _forward_collect(self, obs, **kwargs):
            return {'action': self._collect_model(obs).argmax(-1)}

        def _forward_eval(self, obs):
            return {'action': self._eval_model(obs).argmax(-1)}

    policy = OursStyle(EasyDict())
    assert not OursStyle._di_engine_protocol
    assert type(policy.collect_mode) is CollectMode and type(policy.learn_mode) is LearnMode
    assert policy.collect_mode.forward_batch(np.zeros((3, 4), dtype=np.float32))['action'].shape == (3, )
    # DI-engine's module path for its base class is this same class
    assert importlib.import_module('ding.policy.base_policy').Policy is Policy

def test_collect_and_eval_forward_take_dicts_by_env_id():
    policy = make_policy(make_cfg())
    obs = {3: torch.zeros(4), 7: torch.ones(4)}
    out = policy.collect_mode.forward(obs, eps=0.0)
    assert sorted(out) == [3, 7] and out[3]['logit'].shape == (2, )
    assert sorted(policy.eval_mode.forward(obs)) == [3, 7]
    batch = policy.collect_mode.forward_batch(np.zeros((5, 4), dtype=np.float32), eps=1.0)
    assert batch['action'].shape == (5, ) and sorted(batch.per_env) == [0, 1, 2, 3, 4]


def test_step_collector_builds_transitions_with_process_transition(fake_task):
    cfg = make_cfg(collect=dict(n_sample=12, unroll_len=1))
    policy = make_policy(cfg)
    env = BaseEnvManagerV2([DIStyleCartPoleEnv for _ in range(4)], cfg.env.manager)
    collector = StepCollector(cfg, policy.collect_mode, env)
    ctx = OnlineRLContext()
    ctx.collect_kwargs = {'eps': 0.5}
    drive(collector, ctx)
    traj = ctx.trajectories
    assert isinstance(traj, list) and len(traj) == 12 and ctx.env_step == 12
    assert ctx.trajectory_end_idx == [2, 5, 8, 11]  # 3 steps of each env, env-major
    first = traj[0]
    assert sorted(first) == ['action', 'collect_train_iter', 'done', 'env_data_id', 'next_obs', 'obs', 'reward']
    assert first.obs.dtype == torch.float32 and first.reward.shape == (1, ) and first.done.dtype == torch.bool
    assert [int(t.env_data_id) for t in traj[::3]] == [0, 1, 2, 3]  # env i's first episode has id i
    assert torch.equal(traj[1].obs, traj[0].next_obs)  # env 0's rows in time order


def test_random_warmup_goes_through_process_transition(fake_task):
    cfg = make_cfg(collect=dict(n_sample=4, unroll_len=1))
    policy = make_policy(cfg)
    env = BaseEnvManagerV2([DIStyleCartPoleEnv for _ in range(4)], cfg.env.manager)
    ctx = OnlineRLContext()
    drive(StepCollector(cfg, policy.collect_mode, env, random_collect_size=8), ctx)
    assert len(ctx.trajectories) == 8 and all(isinstance(t.action, torch.Tensor) for t in ctx.trajectories)


def test_get_attribute_asks_get_hooks_first():
    policy = make_policy(make_cfg())
    policy._get_batch_size = lambda: 123
    assert policy.learn_mode.get_attribute('batch_size') == 123
    assert policy.collect_mode.get_attribute('gamma') == policy._gamma


def test_episode_collector_gives_lists_of_transitions(fake_task):
    cfg = make_cfg(collect=dict(n_episode=3, n_sample=None, unroll_len=1))
    policy = make_policy(cfg)
    env = BaseEnvManagerV2([DIStyleCartPoleEnv for _ in range(2)], cfg.env.manager)
    ctx = OnlineRLContext()
    ctx.collect_kwargs = {'eps': 1.0}
    drive(EpisodeCollector(cfg, policy.collect_mode, env), ctx)
    assert len(ctx.episodes) >= 3 and ctx.env_episode == len(ctx.episodes)
    for episode in ctx.episodes:
        assert isinstance(episode, list) and bool(episode[-1].done)
        assert not any(bool(t.done) for t in episode[:-1])
        assert len({int(t.env_data_id) for t in episode}) == 1
    assert ctx.env_step >= sum(len(e) for e in ctx.episodes)  # both envs step; a running episode waits


def test_learner_hands_forward_learn_a_list_of_tensor_dicts(fake_task):
    cfg = make_cfg(learn=dict(update_per_collect=2, batch_size=8, learning_rate=1e-3, target_update_freq=100))
    policy = make_policy(cfg)
    seen = []
    forward_learn = policy._forward_learn
    policy._forward_learn = lambda data: seen.append(data) or forward_learn(data)
    env = BaseEnvManagerV2([DIStyleCartPoleEnv for _ in range(4)], cfg.env.manager)
    buffer_ = DequeBuffer(100)
    ctx = OnlineRLContext()
    ctx.collect_kwargs = {'eps': 1.0}
    for mw in (StepCollector(cfg, policy.collect_mode, env), data_pusher(cfg, buffer_),
               OffPolicyLearner(cfg, policy.learn_mode, buffer_)):
        drive(mw, ctx)
    assert buffer_.count() == 8 and ctx.train_iter == 2 and len(seen) == 2
    data = seen[0]
    assert isinstance(data, list) and len(data) == 8
    assert isinstance(data[0].obs, torch.Tensor) and data[0].obs.shape == (4, ) and data[0].reward.shape == (1, )
    assert set(ctx.train_output[0]) == {'cur_lr', 'total_loss', 'q_value'}


def test_di_engine_style_manager_is_adapted(fake_task):
    cfg = make_cfg(collect=dict(n_sample=6, unroll_len=1))
    policy = make_policy(cfg)
    manager = DIStyleEnvManager([DIStyleCartPoleEnv for _ in range(3)])
    ctx = OnlineRLContext()
    ctx.collect_kwargs = {'eps': 1.0}
    drive(StepCollector(cfg, policy.collect_mode, manager), ctx)
    assert len(ctx.trajectories) == 6 and manager.stepped_ids == [[0, 1, 2], [0, 1, 2]]
    evaluator = interaction_evaluator(cfg, policy.eval_mode, DIStyleEnvManager([DIStyleCartPoleEnv for _ in range(3)]))
    drive(evaluator, ctx)
    returns = ctx.eval_output['episode_return']
    assert len(returns) == 3 and all(1 <= r <= 200 for r in returns) and ctx.eval_value == np.mean(returns)


def test_our_manager_steps_only_the_env_ids_given():
    env = BaseEnvManagerV2([DIStyleCartPoleEnv for _ in range(3)], {})
    env.seed(0)
    env.launch(reset_param={0: {}, 1: {}, 2: {}})
    before = env.ready_obs.copy()
    timesteps = env.step({1: np.int64(0)})
    assert [ts.env_id for ts in timesteps] == [1]
    after = env.ready_obs
    assert np.array_equal(after[[0, 2]], before[[0, 2]]) and not np.array_equal(after[1], before[1])
    with pytest.raises(ValueError, match='subset of the ready envs'):
        env.step({5: 0})
    assert len(env.step([0, 1, 0])) == 3
    env.close()


def _pipeline(cfg, policy, collector_env, evaluator_env):
    from ding.framework import task
    buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
    task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
    task.use(eps_greedy_handler(cfg))
    task.use(StepCollector(cfg, policy.collect_mode, collector_env))
    task.use(data_pusher(cfg, buffer_))
    task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
    return buffer_


def test_pipeline_smoke(one_thread):
    """StepCollector, data_pusher, OffPolicyLearner and interaction_evaluator run a few steps."""
    from ding.framework import task
    set_pkg_seed(0)
    cfg = make_cfg()
    policy = make_policy(cfg)
    with task.start(ctx=OnlineRLContext()):
        buffer_ = _pipeline(cfg, policy, BaseEnvManagerV2([DIStyleCartPoleEnv for _ in range(4)], cfg.env.manager),
                            DIStyleEnvManager([DIStyleCartPoleEnv for _ in range(3)]))
        task.run(max_step=12)
        ctx = task.ctx
    assert buffer_.count() == 12 * 8 and ctx.env_step == 12 * 8 and ctx.train_iter > 0


@pytest.mark.slow  # ~10 s on a quiet machine
def test_learns_cartpole(one_thread):
    """The acceptance run: CartPole-v0 (200-step cap) to the stop value 195 in under 4000 env steps
    (about 10 s here; seed 0 stops at env_step 1336)."""
    from ding.framework import task
    set_pkg_seed(0)
    cfg = make_cfg()
    cfg.env.collector_env_num, cfg.env.evaluator_env_num, cfg.env.n_evaluator_episode = 8, 5, 5
    policy = make_policy(cfg)
    with task.start(ctx=OnlineRLContext()):
        _pipeline(cfg, policy, BaseEnvManagerV2([DIStyleCartPoleEnv for _ in range(8)], cfg.env.manager),
                  DIStyleEnvManager([DIStyleCartPoleEnv for _ in range(5)]))
        task.run(max_step=500)
        ctx = task.ctx
    assert task.finish and ctx.eval_value >= 195 and ctx.env_step <= 4000


def test_dict_observations_reach_the_policy_as_dicts_of_float_tensors():
    from ding.data.batch import Batch
    from ding.compat.policy_data import obs_by_env, transition_list
    obs = Batch(image=np.full((2, 3), 7, dtype=np.uint8), state=Batch(pos=np.arange(2, dtype=np.float64)))
    by_env = obs_by_env(obs)
    assert sorted(by_env) == [0, 1] and by_env[1].image.dtype == torch.float32 and by_env[1].state.pos.item() == 1.0
    rows = transition_list(Batch(obs=obs, reward=np.zeros(2, dtype=np.float32)))
    assert len(rows) == 2 and rows[1].obs['state']['pos'].item() == 1.0 and isinstance(rows[0].reward, torch.Tensor)


class SpacesAfterResetEnv(DIStyleCartPoleEnv):
    """As some DI-engine envs (dizoo's frozen_lake): the spaces exist only after the first reset."""

    def __init__(self, cfg=None):
        super().__init__(cfg)
        del self._observation_space

    def reset(self):
        obs = super().reset()
        self._observation_space = self._env.observation_space
        return obs


def test_manager_resets_a_spare_env_for_spaces_made_in_reset():
    env = BaseEnvManagerV2([SpacesAfterResetEnv for _ in range(2)], {})
    assert env.observation_space.shape == (4, )
    env.launch()
    assert env.ready_obs.shape == (2, 4)
    env.close()
