"""A NaN or infinite observation or reward from an env stops collection with an error naming
the env and its step (env.manager.nonfinite='raise', the default), or drops that episode with
a warning (nonfinite='warn'), under every env manager."""
import logging
from functools import partial

import gymnasium
import numpy as np
import pytest
import torch
from easydict import EasyDict
from gymnasium import spaces

from ding.envs import DingEnvWrapper, create_env_manager
from ding.envs.env_manager.nonfinite import NonFiniteError
from ding.policy import DQNPolicy
from ding.utils.dicts import deep_merge

from .mock_envs import TinyQ, run_collector

EPISODE_LEN = 8
MANAGERS = {
    'base_v2': dict(type='base_v2'),
    'subprocess': dict(type='subprocess', worker_num=1),
    'gym_vector': dict(type='gym_vector', vector='sync'),
    'alternating': dict(type='alternating', worker_num=2),
    'worker_inference': dict(type='worker_inference', worker_num=1),
}


class NonFiniteAt(gymnasium.Env):
    """obs [t, 0, 0, 0], reward 1, episodes of EPISODE_LEN steps; the step numbered `bad_step`
    in the env's life (counted from 1 across episodes; None: never), or step `bad_step` of
    every episode when `every`, gives NaN in `what` ('reward' or 'obs')."""
    observation_space = spaces.Box(-np.inf, np.inf, shape=(4, ), dtype=np.float32)
    action_space = spaces.Discrete(2)

    def __init__(self, what, bad_step, every=False):
        self.what, self.bad_step, self.every, self.t, self.life = what, bad_step, every, 0, 0

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(4, dtype=np.float32), {}

    def step(self, action):
        self.t += 1
        self.life += 1
        bad = self.bad_step is not None and (self.t if self.every else self.life) == self.bad_step
        obs = np.array([self.t, 0, 0, 0], dtype=np.float32)
        reward = 1.0
        if bad and self.what == 'obs':
            obs[2] = np.nan
        if bad and self.what == 'reward':
            reward = float('inf')
        return obs, reward, self.t >= EPISODE_LEN, False, {}


def make_env(what, bad_step, every=False):
    return DingEnvWrapper(NonFiniteAt(what, bad_step, every))


def collect(kind, env_fns, calls, **manager):
    cfg = EasyDict(seed=0, policy=deep_merge(DQNPolicy.default_config(), dict(collect=dict(n_sample=8))))
    torch.manual_seed(0)
    policy = DQNPolicy(cfg.policy, model=TinyQ())
    env = create_env_manager(dict(MANAGERS[kind], **manager), env_fns)
    return run_collector(cfg, policy, env, calls)


@pytest.mark.parametrize('kind', list(MANAGERS))
@pytest.mark.parametrize('what', ['obs', 'reward'])
def test_a_non_finite_value_stops_the_run_naming_env_and_step(kind, what):
    fns = [partial(make_env, what, None), partial(make_env, what, 13)]  # env 1's 13th step
    with pytest.raises(NonFiniteError) as err:
        collect(kind, fns, calls=6)
    text = str(err.value)
    assert 'env 1 ' in text and f'non-finite {"observation" if what == "obs" else "reward"}' in text
    if kind == 'worker_inference':  # rollouts of 4 steps: the 13th step is step 0 of the 4th
        assert 'at step 0 of this rollout' in text
    else:
        assert 'at its env step 13 (step 5 of its episode)' in text


@pytest.mark.parametrize('what', ['obs', 'reward'])
def test_the_collector_checks_its_rows_once_per_call_and_none_reaches_the_buffer(what, monkeypatch):
    """Under 'raise' StepCollector checks a collect call's columns at once and the manager stops
    checking every step (its per-step check would cost 1.5% of CartPole collection)."""
    from ding.envs.env_manager import nonfinite
    per_step = []
    monkeypatch.setattr(nonfinite, 'finite', lambda *args: per_step.append(1) or True)
    fns = [partial(make_env, what, None), partial(make_env, what, 13)]
    cfg = EasyDict(seed=0, policy=deep_merge(DQNPolicy.default_config(), dict(collect=dict(n_sample=8))))
    env = create_env_manager(dict(type='base_v2'), fns)
    batches = []
    with pytest.raises(NonFiniteError, match=r'env 1 returned a non-finite .* at its env step 13 \(step 5 of its '):
        from ding.framework.context import OnlineRLContext
        from ding.framework.middleware import StepCollector
        collector, ctx = StepCollector(cfg, DQNPolicy(cfg.policy, model=TinyQ()).collect_mode, env), OnlineRLContext()
        for _ in range(6):  # 4 steps of each env per call: the 13th is in the 4th call
            collector(ctx)
            batches.append(ctx.trajectories)
    env.close()
    assert per_step == [] and len(batches) == 3  # the bad call's rows were never handed out


def test_a_non_finite_reset_observation_mid_run_raises_from_the_collectors_check():
    class NaNSecondReset(NonFiniteAt):
        resets = 0

        def reset(self, seed=None, options=None):
            self.resets += 1
            obs, info = super().reset(seed=seed)
            return (obs if self.resets < 3 else np.full(4, np.nan, dtype=np.float32)), info

    fns = [partial(make_env, 'obs', None), lambda: DingEnvWrapper(NaNSecondReset('obs', None))]
    with pytest.raises(NonFiniteError, match='env 1 returned a non-finite observation .* from reset'):
        collect('base_v2', fns, calls=6)


@pytest.mark.parametrize('kind', ['base_v2', 'subprocess', 'alternating'])
def test_warn_drops_the_episode_and_collection_goes_on(kind, caplog):
    fns = [partial(make_env, 'reward', None), partial(make_env, 'obs', 13)]
    with caplog.at_level(logging.WARNING, logger='ding.envs.faults'):
        ctx, batches = collect(kind, fns, calls=6, nonfinite='warn')
    assert ctx.dropped_episodes == 1
    assert any('env 1 returned a non-finite observation' in r.getMessage() for r in caplog.records)
    for batch in batches:
        assert np.isfinite(np.asarray(batch['next_obs'])).all() and np.isfinite(np.asarray(batch['reward'])).all()


def test_warn_still_stops_an_env_that_is_never_finite():
    fns = [partial(make_env, 'reward', None), partial(make_env, 'reward', 3, every=True)]
    with pytest.raises(NonFiniteError, match=r'env 1 .* 4 times in a row .*max_retry=3'):
        collect('base_v2', fns, calls=20, nonfinite='warn')


def test_a_non_finite_reset_observation_raises():
    class NaNReset(NonFiniteAt):
        def reset(self, seed=None, options=None):
            return np.full(4, np.nan, dtype=np.float32), {}

    env = create_env_manager(dict(type='base_v2'), [lambda: DingEnvWrapper(NaNReset('obs', None))])
    with pytest.raises(NonFiniteError, match='env 0 returned a non-finite observation .* from reset'):
        env.launch()


def test_warn_is_refused_by_a_vector_env_that_cannot_reset_one_env():
    with pytest.raises(ValueError, match="cannot drop one episode: env.manager.nonfinite='warn' needs"):
        create_env_manager(dict(type='gym_vector', vector='sync', nonfinite='warn'), [partial(make_env, 'obs', None)])


def test_an_unknown_mode_is_refused_naming_the_key():
    with pytest.raises(ValueError, match=r"env.manager.nonfinite must be one of \['raise', 'warn'\], got 'skip'"):
        create_env_manager(dict(type='base_v2', nonfinite='skip'), [partial(make_env, 'obs', None)])
