"""HerRewardModel (hindsight relabelling) and the bit-flipping env it is shown on."""
import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.data.batch import Batch
from ding.reward_model import HerRewardModel
from dizoo.bitflip.envs import BitFlipEnv


def _episode(n_bits=4, length=4, seed=0):
    """A recorded bit-flipping episode (random actions), as the EpisodeCollector stores it."""
    env = BitFlipEnv(EasyDict(n_bits=n_bits))
    env.seed(seed)
    obs = env.reset()
    rows = []
    rng = np.random.default_rng(seed)
    for _ in range(length):
        action = int(rng.integers(n_bits))
        ts = env.step(np.array([action]))
        rows.append(dict(obs=obs, action=np.int64(action), reward=np.float32(ts.reward[0]), next_obs=ts.obs,
                         done=bool(ts.done), env_id=np.int64(0)))
        obs = ts.obs
        if ts.done:
            break
    return Batch.from_rows(rows)


def test_future_relabels_with_goals_reached_later_and_rewards_them():
    episode = _episode(n_bits=6, length=6)
    before = {k: np.array(v) for k, v in episode.items()}
    model = HerRewardModel(EasyDict(her_strategy='future'))
    (relabelled, ) = model.estimate(list(episode))  # a list of transitions, as the buffer holds them
    n = len(episode)
    assert len(relabelled) == n  # no sample_per_episode: every transition once
    states_reached = before['next_obs'][:, :6]
    for i in range(n):
        obs, next_obs = relabelled['obs'][i], relabelled['next_obs'][i]
        goal = obs[6:]
        assert np.array_equal(next_obs[6:], goal)
        assert np.array_equal(obs[:6], before['obs'][i, :6]) and np.array_equal(next_obs[:6], states_reached[i])
        # the goal is a state the episode reached at this step or later
        assert any(np.array_equal(goal, states_reached[j]) for j in range(i, n))
        assert relabelled['reward'][i] == float(np.array_equal(states_reached[i], goal))
        assert relabelled['action'][i] == before['action'][i]
    assert relabelled['reward'][n - 1] == 1.0  # the last step's own state is its only future goal
    for k, v in before.items():  # the stored episode is untouched
        assert np.array_equal(np.asarray(episode[k]), v)


def test_final_strategy_uses_the_last_state_and_sizes_follow_the_config():
    episode = _episode(n_bits=5, length=5, seed=3)
    model = HerRewardModel(EasyDict(her_strategy='final', her_replay_k=3, sample_per_episode=7, episode_size=2))
    out = model.estimate(episode)
    assert len(out) == 3 and all(len(b) == 7 for b in out)
    assert model.episode_size == 2 and model.sample_per_episode == 7
    final_state = np.asarray(episode['next_obs'])[-1, :5]
    for batch in out:
        assert np.all(batch['obs'][:, 5:] == final_state)


def test_custom_functions_get_torch_tensors_as_in_di_engine():
    episode = _episode(n_bits=3, length=3)
    seen = []

    def split(x):
        seen.append(type(x))
        obs, goal = torch.chunk(x, 2)
        return obs, goal, obs

    def reward(achieved, desired):
        return torch.FloatTensor([2.0 if bool((achieved == desired).all()) else -1.0])

    (out, ) = HerRewardModel(EasyDict(her_strategy='episode')).estimate(
        episode, merge_func=lambda a, b: torch.cat([a, b]), split_func=split, goal_reward_func=reward)
    assert set(seen) == {torch.Tensor} and len(out) == len(episode)
    assert set(np.unique(out['reward'])) <= {2.0, -1.0} and out['obs'].shape == (len(episode), 6)


@pytest.mark.parametrize('cfg, match', [(dict(her_strategy='best'), 'her_strategy'),
                                        (dict(her_strategy='future', sample_per_episode=0), 'sample_per_episode')])
def test_bad_her_config_names_the_key(cfg, match):
    with pytest.raises(ValueError, match=match):
        HerRewardModel(EasyDict(cfg))


def test_odd_observation_cannot_split_into_goal_halves():
    episode = Batch(obs=np.zeros((2, 3), np.float32), next_obs=np.zeros((2, 3), np.float32),
                    reward=np.zeros(2, np.float32), action=np.zeros(2, np.int64))
    with pytest.raises(ValueError, match='halves'):
        HerRewardModel(EasyDict(her_strategy='future')).estimate(episode)


def test_bitflip_env_flips_rewards_success_and_truncates_at_n_steps():
    env = BitFlipEnv(EasyDict(n_bits=4))
    env.seed(7)
    obs = env.reset()
    assert obs.shape == (8, ) and obs.dtype == np.float32 and env.action_space.n == 4
    state, goal = obs[:4].copy(), obs[4:].copy()
    assert not np.array_equal(state, goal)
    diff = np.flatnonzero(state != goal)
    for k, bit in enumerate(diff):  # flipping exactly the differing bits solves it
        ts = env.step(np.array([bit]))
        assert ts.obs[bit] == 1 - state[bit] and np.array_equal(ts.obs[4:], goal)
    assert ts.done and ts.reward.tolist() == [1.0] and ts.info['eval_episode_return'] == 1.0
    assert 'TimeLimit.truncated' not in ts.info
    obs = env.reset()
    while np.count_nonzero(obs[:4] != obs[4:]) < 2:  # an episode that one flip of bit 0 cannot solve
        obs = env.reset()
    for step in range(4):  # flipping bit 0 back and forth never solves it: truncated after n_bits steps
        ts = env.step(0)
        assert ts.reward[0] == 0.0 and ts.done == (step == 3)
    assert ts.info['TimeLimit.truncated'] and ts.info['eval_episode_return'] == 0.0


def test_bitflip_env_seeding_and_bad_input():
    a, b = BitFlipEnv(EasyDict(n_bits=10)), BitFlipEnv(EasyDict(n_bits=10))
    a.seed(1), b.seed(1)
    assert all(np.array_equal(a.reset(), b.reset()) for _ in range(3))
    a.seed(2, dynamic_seed=False)
    assert np.array_equal(a.reset(), a.reset())
    with pytest.raises(ValueError, match='outside'):
        a.step(10)
    with pytest.raises(ValueError, match='n_bits'):
        BitFlipEnv(EasyDict(n_bits=0))


def test_bitflip_time_limit_is_a_truncation_for_env_managers():
    env = BitFlipEnv(EasyDict(n_bits=2))
    env.seed(0)
    obs = env.reset()
    while np.count_nonzero(obs[:2] != obs[2:]) < 2:
        obs = env.reset()
    env.gym_step(0)
    _, reward, terminated, truncated, _ = env.gym_step(0)
    assert (reward, terminated, truncated) == (0.0, False, True)


def test_estimate_episodes_relabels_each_episode_within_itself():
    episodes = [list(_episode(n_bits=6, length=6, seed=s)) for s in range(5)]
    model = HerRewardModel(EasyDict(her_strategy='future', sample_per_episode=3, her_replay_k=2))
    out = model.estimate_episodes(episodes)
    assert len(out) == 5 * 3 * 2
    reached = [np.asarray(Batch.from_rows(e)['next_obs'])[:, :6] for e in episodes]
    for i in range(len(out)):
        k = (i % 15) // 3  # replay copy, then episode, then sample
        goal, state = out['obs'][i, 6:], out['next_obs'][i, :6]
        # the achieved state and the goal both come from the same episode, the goal no earlier
        steps = [j for j in range(len(reached[k])) if np.array_equal(reached[k][j], state)]
        goal_steps = [j for j in range(len(reached[k])) if np.array_equal(reached[k][j], goal)]
        assert steps and goal_steps and max(goal_steps) >= min(steps)
        assert out['reward'][i] == float(np.array_equal(state, goal))


def test_her_learner_trains_on_relabelled_episodes_from_the_buffer():
    from ding.data import DequeBuffer
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import HERLearner, data_pusher
    buffer_ = DequeBuffer(size=10)
    batches = []

    class Learn:
        def forward(self, data):
            batches.append(data)
            return {'total_loss': 0.0}

    cfg = EasyDict(policy=dict(learn=dict(update_per_collect=3, batch_size=64)))
    model = HerRewardModel(EasyDict(her_strategy='final', episode_size=2, sample_per_episode=5))
    with task.start(ctx=OnlineRLContext()):
        ctx = OnlineRLContext()
        ctx.episodes = [_episode(n_bits=4, length=4, seed=s) for s in range(3)]
        data_pusher(cfg, buffer_)(ctx)
        HERLearner(cfg, Learn(), buffer_, model)(ctx)
    assert len(batches) == 3 and all(len(b) == 10 for b in batches) and ctx.train_iter == 3
    assert all(np.all(b['reward'][np.all(b['next_obs'][:, :4] == b['obs'][:, 4:], axis=1)] == 1) for b in batches)


def test_done_on_goal_makes_exactly_the_goal_reaching_relabels_terminal():
    episodes = [list(_episode(n_bits=5, length=5, seed=s)) for s in range(4)]
    out = HerRewardModel(EasyDict(her_strategy='future', done_on_goal=True)).estimate_episodes(episodes)
    assert out['done'].dtype == bool and np.array_equal(out['done'], out['reward'] == 1.0)
