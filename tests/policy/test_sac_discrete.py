"""DiscreteSACPolicy: acting outputs, a learn step, and learning a 2-armed bandit."""
import numpy as np
import torch

from ding.data.batch import Batch
from ding.policy import DiscreteSACPolicy
from qac_helpers import random_batch

MODEL = dict(obs_shape=3, action_shape=4, twin_critic=True)


def test_collect_samples_valid_actions_and_eval_takes_argmax():
    torch.manual_seed(0)
    policy = DiscreteSACPolicy(dict(model=MODEL))
    obs = np.zeros((200, 3), np.float32)
    out = policy.collect_mode.forward_batch(obs)
    assert out['action'].dtype == np.int64 and set(out['action']) == {0, 1, 2, 3}
    ev = policy.eval_mode.forward_batch(obs[:2])
    assert np.array_equal(ev['action'], ev['logit'].argmax(-1))


def test_default_target_entropy_is_half_log_actions():
    policy = DiscreteSACPolicy(dict(model=MODEL))
    assert policy._target_entropy == 0.5 * np.log(4)
    out = policy.learn_mode.forward(random_batch(obs_dim=3, discrete_actions=4))
    assert 0 < out['entropy'] <= np.log(4) + 1e-6


def test_learns_the_better_arm():
    torch.manual_seed(0)
    policy = DiscreteSACPolicy(dict(model=dict(obs_shape=2, action_shape=2, twin_critic=True),
                                    learn=dict(learning_rate_q=3e-3, learning_rate_policy=3e-3)))
    rng = np.random.default_rng(0)
    for _ in range(200):
        action = rng.integers(0, 2, 64)
        policy.learn_mode.forward(Batch(obs=np.ones((64, 2), np.float32), action=action,
                                        reward=action.astype(np.float32), next_obs=np.ones((64, 2), np.float32),
                                        done=np.ones(64, bool)))
    assert policy.eval_mode.forward_batch(np.ones((1, 2), np.float32))['action'].item() == 1
