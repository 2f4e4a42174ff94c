"""DI-engine's trex.py pipeline at a reduced budget: an expert run's checkpoints
(iteration_0..500) -> `trex_collecting_data` -> `TrexRewardModel` ranks the demonstrations ->
DQN's learner trains on its rewards. The checkpoints here are a DQN imitating a scripted CartPole
controller for more and more steps (so later checkpoints are better, as T-REX assumes) instead of
the DQN example's run, and the reward model draws 600 pairs instead of 6006.
The example itself (with the DQN example's checkpoints) is run by
`benchmarks/di_engine/di_engine_examples.py --only dqn,trex`."""
import copy
import os
import pickle

import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.config import compile_config
from ding.entry import trex_collecting_data
from ding.framework.middleware import CkptSaver
from ding.model import DQN
from ding.policy import DQNPolicy
from ding.reward_model import create_reward_model
from dizoo.classic_control.cartpole.config.cartpole_trex_dqn_config import create_config, main_config


STEPS = 6  # few enough that the checkpoints differ in skill (returns 15, 10, 29, 200, 200, 158)


def scripted_action(obs: torch.Tensor) -> torch.Tensor:
    """Push towards where the pole falls (return 200 on CartPole-v0)."""
    return (obs[:, 2] + 0.5 * obs[:, 3] > 0).long()


def write_expert_checkpoints(folder: str, cfg) -> None:
    """iteration_{100 k}.pth.tar: the DQN net after STEPS * k cross-entropy steps towards the scripted action."""
    torch.manual_seed(0)
    model = DQN(**cfg.policy.model)
    policy = DQNPolicy(cfg.policy, model=model)
    saver = CkptSaver(policy, folder)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    scale = torch.tensor([0.5, 0.5, 0.1, 0.5])
    for k in range(6):
        saver.save(f'iteration_{100 * k}.pth.tar')
        for _ in range(STEPS):
            obs = torch.randn(128, 4) * scale
            loss = torch.nn.functional.cross_entropy(model(obs)['logit'], scripted_action(obs))
            opt.zero_grad()
            loss.backward()
            opt.step()


@pytest.mark.slow
def test_trex_pipeline_ranks_checkpoint_demos_and_feeds_the_learner(tmp_path, monkeypatch):
    torch.set_num_threads(1)
    monkeypatch.chdir(tmp_path)  # DI-engine's paths are relative to the working directory
    main = copy.deepcopy(main_config)
    main.reward_model.num_snippets = 600
    cfg = compile_config(copy.deepcopy(main), create_cfg=copy.deepcopy(create_config), auto=True, seed=0,
                         save_cfg=False, renew_dir=False)
    write_expert_checkpoints(main.reward_model.expert_model_path, cfg)

    checkpoints, episodes, returns, rewards = trex_collecting_data(EasyDict(cfg=[main, create_config], seed=0))
    assert checkpoints == ['0', '100', '200', '300', '400', '500']
    for name in ('suboptimal_data', 'episodes_data', 'learning_returns', 'learning_rewards', 'checkpoints'):
        assert os.path.isfile(os.path.join(main.exp_name, f'{name}.pkl'))
    with open(os.path.join(main.exp_name, 'suboptimal_data.pkl'), 'rb') as f:
        suboptimal = pickle.load(f)
    assert sorted(suboptimal) == list(range(6)) and len(suboptimal[5][0]) == len(episodes[5][0])
    flat = [r[0] for r in returns]
    assert [len(e[0]) for e in episodes] == flat and [sum(r[0]) for r in rewards] == flat
    assert flat[0] < 30 and flat[-1] > 100, flat  # the untrained net falls at once, the last balances

    np.random.seed(0)
    torch.manual_seed(0)
    reward_model = create_reward_model(copy.deepcopy(cfg), 'cpu')
    reward_model.train()
    assert reward_model.last_stats["accuracy"] >= 0.8, reward_model.last_stats  # 0.91; untrained: ~0.5
    predicted = [r[0] for r in reward_model.last_stats['predicted_returns']]
    assert predicted[-1] > predicted[0], predicted

    # the example's learner: OffPolicyLearner(cfg, policy.learn_mode, buffer_, reward_model) trains on r(obs)
    from ding.data import DequeBuffer
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import OffPolicyLearner
    policy = DQNPolicy(cfg.policy, model=DQN(**cfg.policy.model))
    seen = []  # the batches the reward model rewrote, which the learner then trains on
    estimate = reward_model.estimate
    reward_model.estimate = lambda data: seen.append(estimate(data)) or seen[-1]
    buffer_ = DequeBuffer(size=1000)
    for row in suboptimal[5][0]:
        buffer_.push(dict(row))
    with task.start(ctx=OnlineRLContext()):
        OffPolicyLearner(cfg, policy.learn_mode, buffer_, reward_model)(task.ctx)
        assert task.ctx.train_iter == len(seen) == cfg.policy.learn.update_per_collect
    got, obs = np.asarray(seen[0].reward, np.float32), np.asarray(seen[0].obs, np.float32)
    expected = [reward_model.predict_traj_return([o]) for o in obs]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    assert not np.allclose(got, 1.0)  # not CartPole's own reward
