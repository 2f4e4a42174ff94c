"""Dict observations (gymnasium `Dict` spaces) through the serial env manager, StepCollector,
data_pusher and the buffer: a nested Batch all the way, float64 leaves as float32."""
import gymnasium
import numpy as np
from easydict import EasyDict
from gymnasium import spaces

from ding.data import DequeBuffer
from ding.data.batch import Batch
from ding.envs import BaseEnvManagerV2
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import StepCollector, data_pusher


class DictObsEnv(gymnasium.Env):
    """obs {'pos': float64 [2] = (t, t), 'image': uint8 [2, 2] = t, 'inner': {'k': float32 [1]}};
    episodes of 3 steps, reward 1."""
    observation_space = spaces.Dict({
        'pos': spaces.Box(-np.inf, np.inf, shape=(2, ), dtype=np.float64),
        'image': spaces.Box(0, 255, shape=(2, 2), dtype=np.uint8),
        'inner': spaces.Dict({'k': spaces.Box(-1.0, 1.0, shape=(1, ), dtype=np.float32)}),
    })
    action_space = spaces.Discrete(2)

    def _obs(self):
        return {'pos': np.full(2, float(self.t)), 'image': np.full((2, 2), self.t, dtype=np.uint8),
                'inner': {'k': np.full(1, 0.5, dtype=np.float32)}}

    def reset(self, *, seed=None, options=None):
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        self.t += 1
        return self._obs(), 1.0, self.t >= 3, False, {}


class FirstKeyPolicy:
    transition_keys = ()

    def forward_batch(self, obs, **kwargs):
        assert isinstance(obs, Batch) and obs.pos.dtype == np.float32
        return {'action': (obs.pos[:, 0] % 2).astype(np.int64)}

    def reset(self, env_ids=None):
        pass


def test_dict_obs_through_manager_collector_and_buffer():
    env = BaseEnvManagerV2([DictObsEnv for _ in range(2)], {})
    env.seed(0)
    env.launch()
    ready = env.ready_obs
    assert isinstance(ready, Batch) and ready.pos.shape == (2, 2) and ready.image.dtype == np.uint8
    assert ready.inner.k.shape == (2, 1)
    cfg = EasyDict(seed=0, policy=dict(collect=dict(n_sample=8, unroll_len=1)))
    ctx = OnlineRLContext()
    StepCollector(cfg, FirstKeyPolicy(), env)(ctx)
    traj = ctx.trajectories
    assert len(traj) == 8 and traj.obs.pos.shape == (8, 2) and traj.obs.inner.k.shape == (8, 1)
    # env 0's rows: t = 0, 1, 2 then the reset episode's 0; next_obs is the terminal obs (t = 3)
    assert traj.obs.pos[:4, 0].tolist() == [0.0, 1.0, 2.0, 0.0]
    assert traj.next_obs.pos[:4, 0].tolist() == [1.0, 2.0, 3.0, 1.0] and traj.done[:4].tolist() == [0, 0, 1, 0]
    buffer_ = DequeBuffer(20)
    data_pusher(cfg, buffer_)(ctx)
    sampled = buffer_.sample(5).batch
    assert sampled.obs.image.shape == (5, 2, 2) and sampled.obs.inner.k.shape == (5, 1)
    env.close()


def test_dict_obs_with_other_keys_names_the_env():
    import pytest
    from ding.envs.env_manager.obs_stack import stack_obs
    with pytest.raises(ValueError, match=r"env 1 returned an observation with keys \['b'\], expected \['a'\]"):
        stack_obs([{'a': np.zeros(2)}, {'b': np.zeros(2)}], (), [0, 1])


class DictEncoder:
    """Built in the test: flattens pos, image and inner.k into 8 features (a user's encoder). It
    gets DI-engine's collated view: float32 leaves, the one-value leaf inner.k as a (B,) vector."""

    @staticmethod
    def make():
        import torch

        class Encoder(torch.nn.Module):

            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(2 + 4 + 1, 8)

            def forward(self, obs):
                assert obs['inner']['k'].dim() == 1 and obs['image'].dtype == torch.float32
                parts = [obs['pos'], obs['image'].flatten(1) / 255, obs['inner']['k'].unsqueeze(-1)]
                return torch.relu(self.fc(torch.cat(parts, dim=1)))

        return Encoder()


def test_vac_with_a_user_encoder_acts_on_dict_observations():
    import torch
    from ding.model import VAC
    from ding.policy import PPOPolicy
    model = VAC(obs_shape={'pos': (2, ), 'image': (2, 2), 'inner': {'k': (1, )}}, action_shape=2,
                encoder=DictEncoder.make(), actor_head_hidden_size=8, critic_head_hidden_size=8)
    encoder_weight = model.actor_encoder.fc.weight.detach().clone()
    policy = PPOPolicy(EasyDict(), model=model)
    assert torch.equal(policy._model.actor_encoder.fc.weight, encoder_weight)  # its own initialisation is kept
    env = BaseEnvManagerV2([DictObsEnv for _ in range(3)], {})
    env.launch()
    out = policy.collect_mode.forward_batch(env.ready_obs)
    assert out['action'].shape == (3, ) and out['value'].shape == (3, )
    assert policy.eval_mode.forward_batch(env.ready_obs)['action'].shape == (3, )
    env.close()


def test_ppo_trains_on_dict_observations():
    """StepCollector -> gae_estimator -> multistep_trainer, the `ppo_with_complex_obs` chain."""
    from ding.framework.middleware import gae_estimator, multistep_trainer
    from ding.model import VAC
    from ding.policy import PPOPolicy
    model = VAC(obs_shape={}, action_shape=2, encoder=DictEncoder.make(), actor_head_hidden_size=8,
                critic_head_hidden_size=8)
    policy = PPOPolicy(EasyDict(learn=dict(epoch_per_collect=2, batch_size=8), collect=dict(n_sample=16, unroll_len=1)),
                       model=model)
    cfg = EasyDict(seed=0, policy=policy.cfg)
    env = BaseEnvManagerV2([DictObsEnv for _ in range(2)], {})
    ctx = OnlineRLContext()
    for mw in (StepCollector(cfg, policy.collect_mode, env), gae_estimator(cfg, policy.collect_mode),
               multistep_trainer(policy.learn_mode)):
        gen = mw(ctx)
        for _ in (gen if hasattr(gen, '__next__') else ()):
            pass
    assert ctx.train_iter == 4 and np.isfinite(ctx.train_output[-1]['total_loss'])  # 2 epochs x 16 / 8
    env.close()
