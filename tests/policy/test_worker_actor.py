"""The policy side of worker-side inference: DQN's picklable eps-greedy actor factory and
the versioned collect weights the collector publishes to env workers."""
import cloudpickle
import numpy as np
import pytest
import torch

from ding.policy import DQNPolicy
from ding.policy.base_policy import Policy
from ding.policy.worker_actor import EpsGreedyActor


def make_dqn():
    torch.manual_seed(0)
    return DQNPolicy(dict(model=dict(obs_shape=4, action_shape=3, encoder_hidden_size_list=[8, 8])))


def test_dqn_actor_factory_survives_pickling_and_acts_like_the_collect_model():
    policy = make_dqn()
    actor = cloudpickle.loads(cloudpickle.dumps(policy.collect_mode.worker_actor()))()
    obs = np.random.default_rng(1).standard_normal((16, 4)).astype(np.float32)
    greedy = policy.collect_mode.forward_batch(obs, eps=-1)['action']
    for eps in (0.0, None, -1):
        assert actor(obs, eps=eps).tolist() == greedy.tolist()
    assert actor(obs).dtype == np.int64


def test_warm_up_and_full_exploration_are_uniform_and_seeded():
    policy = make_dqn()
    factory = policy.collect_mode.worker_actor()
    obs = np.zeros((300, 4), np.float32)  # one greedy action for every row
    first, second, other = factory(), factory(), factory()
    first.seed(5), second.seed(5), other.seed(6)
    warm = first(obs, eps=0.0, warmup=True)
    assert warm.tolist() == second(obs, eps=0.0, warmup=True).tolist() != other(obs, warmup=True).tolist()
    assert sorted(set(warm.tolist())) == [0, 1, 2]
    assert sorted(set(first(obs, eps=1.0).tolist())) == [0, 1, 2]


def test_worker_weights_change_only_with_the_learners_version():
    policy = make_dqn()
    version, state = policy.collect_mode.worker_weights(None)
    assert version == 0 and set(state) == set(policy._model.state_dict())
    assert policy.collect_mode.worker_weights(version) is None
    learner_state = policy.learn_mode.state_dict()
    for value in learner_state['model'].values():
        value.add_(1.0)
    policy.learn_mode.load_state_dict(learner_state)
    new_version, new_state = policy.collect_mode.worker_weights(version)
    assert new_version == 1
    for key, value in new_state.items():
        assert torch.equal(value, learner_state['model'][key]), key


def test_a_policy_without_worker_actor_says_so():

    class MainProcessOnly(Policy):

        def default_model(self):
            return torch.nn.Linear(4, 2)

    with pytest.raises(NotImplementedError, match='MainProcessOnly cannot act inside env workers'):
        MainProcessOnly({}).collect_mode.worker_actor()


def test_eps_greedy_actor_loads_published_weights():
    actor = EpsGreedyActor(lambda: _Linear2())
    actor.load_state_dict({'fc.weight': torch.zeros(2, 4), 'fc.bias': torch.tensor([0.0, 1.0])})
    assert actor(np.ones((3, 4), np.float32)).tolist() == [1, 1, 1]


class _Linear2(torch.nn.Module):

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return {'logit': self.fc(x)}
