"""PettingZoo parallel envs as ding multi-agent envs: layout, global state, team reward, death masking."""
import numpy as np
import pytest
from easydict import EasyDict

from dizoo.petting_zoo.envs.petting_zoo_simple_spread_env import PettingZooEnv
from tests.multiagent.ma_envs import cue_env


def spread(**kw):
    return PettingZooEnv(EasyDict(dict(n_agent=3, n_landmark=3, max_cycles=25, **kw)))


def test_simple_spread_layout_global_state_and_team_reward():
    env = spread()
    env.seed(7)
    obs = env.reset()
    assert env.action_space.nvec.tolist() == [5, 5, 5]
    assert obs['agent_state'].shape == (3, 18) and obs['action_mask'].shape == (3, 5)
    a = obs['agent_state']  # DI-engine's layout: agent 0's view, then all velocities, then all comms
    expected = np.concatenate([a[0, 2:-4], a[:, :2].ravel(), a[:, -4:].ravel()])
    np.testing.assert_array_equal(obs['global_state'], expected)
    assert obs['global_state'].shape == (30, )
    raw = env._env  # the mpe2 parallel env: our team reward is twice its per-agent sum (local_ratio 0.5)
    captured = {}
    step = raw.step
    raw.step = lambda act: captured.setdefault('out', step(act))
    ts = env.step(np.array([1, 2, 3]))
    assert ts.reward.dtype == np.float32 and ts.reward.shape == (1, )
    assert ts.reward[0] == pytest.approx(2 * sum(captured['out'][1].values()), rel=1e-6)
    raw.step = step
    for _ in range(24):
        ts = env.step(env.random_action())
    assert ts.done and ts.info['truncated'] and 'eval_episode_return' in ts.info
    assert np.abs(ts.obs['agent_state']).sum() > 0  # the last observation is kept for bootstrapping
    env.close()


def test_agent_specific_global_state_obs_only_and_reseeding():
    specific = spread(agent_specific_global_state=True).reset()
    assert specific['global_state'].shape == (3, 48)
    np.testing.assert_array_equal(specific['global_state'][:, :18], specific['agent_state'])
    assert spread(agent_obs_only=True).reset().shape == (3, 18)
    env = spread()
    env.seed(3, dynamic_seed=False)
    first = env.reset()['agent_state']
    env.step(np.zeros(3, dtype=np.int64))
    np.testing.assert_array_equal(env.reset()['agent_state'], first)
    env.seed(3)
    np.testing.assert_array_equal(env.reset()['agent_state'], first)
    assert not np.array_equal(env.reset()['agent_state'], first)


def test_simple_reference_and_config_errors():
    env = PettingZooEnv(dict(env_id='simple_reference_v3', n_agent=2))
    obs = env.reset()
    assert obs['agent_state'].shape == (2, 21) and obs['action_mask'].shape == (2, 50)
    assert obs['global_state'].shape == (42, ) and env.action_space.nvec.tolist() == [50, 50]
    with pytest.raises(ValueError, match='simple_reference has 2 agents'):
        PettingZooEnv(dict(env_id='simple_reference_v3', n_agent=3))
    with pytest.raises(ValueError, match='env_id must name one of'):
        PettingZooEnv(dict(env_id='simple_tag_v3'))
    with pytest.raises(ValueError, match='act_scale'):
        spread(act_scale=True)


def test_continuous_actions():
    env = spread(continuous_actions=True)
    obs = env.reset()
    assert env.action_space.shape == (3, 5) and obs['action_mask'].shape == (3, 5)
    assert not env.step(np.full((3, 5), 0.5, dtype=np.float32)).done


def test_death_masking():
    env = cue_env(dict(agent_specific_global_state=True), length=4, die_at=2)
    env.seed(0)
    obs = env.reset()
    assert obs['global_state'].shape == (2, 5 + 4)
    for t in range(4):
        ts = env.step(np.array([0, 2]))
        if t + 1 >= 2:  # agent_1 terminated at step 2 while agent_0 plays on
            assert not ts.obs['agent_state'][1].any() and not ts.obs['global_state'][1].any()
            assert ts.obs['action_mask'][1].tolist() == [1, 0, 0] and ts.obs['action_mask'][0].tolist() == [1, 1, 1]
            assert ts.obs['agent_state'][0].any()
        else:
            assert ts.obs['agent_state'][1].any() and ts.obs['action_mask'][1].all()
    assert ts.done and ts.info['truncated']  # agent_0, the last one left, was truncated by the time limit
    no_mask = cue_env(dict(death_mask=False, agent_specific_global_state=True), length=4, die_at=1)
    no_mask.reset()
    after = no_mask.step(np.array([0, 0])).obs
    assert after['action_mask'][1].tolist() == [1, 0, 0]  # a dead agent still only no-ops
    assert after['agent_state'][1].any() and after['global_state'][1].any()  # the env's last observation, kept
