"""The alternating sampler and worker-side inference: same data as serial stepping."""
import functools
import multiprocessing

import gymnasium
import numpy as np
import torch

from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.envs.env_manager.alternating_sampler import AlternatingSampler
from ding.envs.env_manager.weight_board import WeightBoard
from ding.envs.env_manager.worker_inference import WorkerInferenceSampler
from ding.policy.worker_actor import EpsGreedyActor

from .mock_envs import TinyQ


def cartpole_fns(n):
    return [lambda: DingEnvWrapper(gymnasium.make('CartPole-v1')) for _ in range(n)]


def sign_policy(obs):
    return {'action': (obs[:, 2] < 0).astype(np.int64), 'value': obs[:, 0] * 2}  # falls fast


def serial_rollout(n, seed, steps, policy):
    m = BaseEnvManagerV2(cartpole_fns(n))
    m.seed(seed)
    m.launch()
    rows = []
    for _ in range(steps):
        obs = m.ready_obs
        out = policy(obs)
        res = m.step_batch(out['action'])
        rows.append((obs, out['action'], res.reward, res.next_obs, res.terminated, res.truncated))
    m.close()
    cols = [np.stack(c, axis=1) for c in zip(*rows)]  # [n, T, ...] each
    return [c.reshape((n * steps, ) + c.shape[2:]) for c in cols]


def test_alternating_sampler_gives_the_serial_data():
    sampler = AlternatingSampler(cartpole_fns(5), dict(worker_num=2))
    sampler.seed(11)
    reset_calls = []
    batch, episodes = sampler.collect_steps(lambda o: sign_policy(o), 40, reset=reset_calls.extend, extra_keys=('value', ))
    sampler.close()
    obs, action, reward, next_obs, term, trunc = serial_rollout(5, 11, 40, sign_policy)
    assert len(batch) == 200 and batch.env_id.tolist() == np.repeat(np.arange(5), 40).tolist()
    for got, want in ((batch.obs, obs), (batch.action, action), (batch.reward, reward), (batch.next_obs, next_obs),
                      (batch.done, term), (batch.truncated, trunc)):
        assert np.array_equal(got, want)
    assert np.array_equal(batch.value, batch.obs[:, 0] * 2)
    assert episodes == int((term | trunc).sum()) == len(reset_calls) and episodes > 0
    assert multiprocessing.active_children() == []


def test_weight_board_publishes_versions():
    model = TinyQ()
    board = WeightBoard(model.state_dict())
    reader = WeightBoard.attach(board.handle)
    version, state = reader.read_if_newer(-1)
    assert version == 2 and torch.equal(state['fc.weight'], model.fc.weight.detach())
    assert reader.read_if_newer(version) is None
    with torch.no_grad():
        model.fc.bias.fill_(3.0)
    assert board.publish(model.state_dict()) == 4
    assert reader.read_if_newer(version)[1]['fc.bias'].tolist() == [3.0, 3.0]
    reader.close()
    board.close()


def test_worker_inference_acts_like_the_model_and_follows_published_weights():
    torch.manual_seed(0)
    model = TinyQ()
    sampler = WorkerInferenceSampler(cartpole_fns(4), dict(worker_num=2))
    sampler.seed(2)
    sampler.bind_actor(functools.partial(EpsGreedyActor, TinyQ), model.state_dict())
    parts = [sampler.collect_rollout(steps, dict(eps=0.0)) for steps in (3, 12, 5)]  # the arrays grow at 12

    def greedy(obs):
        with torch.no_grad():
            return {'action': model(torch.from_numpy(obs))['logit'].argmax(-1).numpy()}

    want = serial_rollout(4, 2, 20, greedy)
    for k, key in enumerate(('obs', 'action', 'reward', 'next_obs', 'done', 'truncated')):
        per_env = [np.split(batch[key], 4) for batch, _ in parts]  # env-major rows of each rollout
        got = np.concatenate([np.concatenate([p[i] for p in per_env]) for i in range(4)])
        assert np.array_equal(got, want[k]), key
    assert [len(batch) for batch, _ in parts] == [12, 48, 20]
    assert sum(episodes for _, episodes in parts) == int((want[4] | want[5]).sum())
    with torch.no_grad():
        model.fc.bias.copy_(torch.tensor([-100.0, 100.0]))
    batch, _ = sampler.collect_rollout(30, dict(eps=0.0), publish=model.state_dict())
    assert batch.action.tolist() == [1] * 120  # the workers reloaded the new weights
    assert sampler.weights_version == 4
    sampler.close()
    assert multiprocessing.active_children() == []
