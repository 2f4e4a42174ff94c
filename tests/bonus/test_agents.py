"""The one-line agents: lazy exports, a short DQN run, evaluation, best checkpoint, replay."""
import json

import pytest
from PIL import Image

import ding.bonus


def test_every_agent_is_exported_lazily_with_its_algorithm():
    from ding.bonus import A2CAgent, DQNAgent, PPOAgent, PPOF, SACAgent, TD3Agent
    assert PPOAgent is PPOF
    assert [a.algo for a in (DQNAgent, PPOF, SACAgent, TD3Agent, A2CAgent)] == ['dqn', 'ppo', 'sac', 'td3', 'a2c']
    assert {'DQNAgent', 'PPOF', 'SACAgent', 'TD3Agent', 'A2CAgent'} <= set(dir(ding.bonus))


def test_unknown_env_lists_the_tuned_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from ding.bonus import SACAgent
    from ding.entry.catalog import ChoiceError
    with pytest.raises(ChoiceError, match="unknown env for sac 'CartPole-v1'; valid choices: Pendulum-v1"):
        SACAgent(env_id='CartPole-v1')


def test_dqn_agent_trains_evaluates_and_deploys_its_best(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from ding.bonus import DQNAgent
    agent = DQNAgent(env_id='CartPole-v1', seed=1, exp_name='agent',
                     cfg={'env': {'n_evaluator_episode': 2},
                          'policy': {'collect': {'n_sample': 8}, 'learn': {'learning_rate': 0.0005},
                                     'random_collect_size': 0}})  # 120 steps: shorter than the tuned warm-up
    assert agent.cfg.policy.learn.learning_rate == 0.0005 and agent.cfg.seed == 1
    result = agent.train(step=120, debug=True)
    rows = [json.loads(line) for line in (tmp_path / 'agent' / 'result.json').read_text().splitlines()]
    assert result.env_step == rows[-1]['env_step'] == 120
    assert result.train_iter == rows[-1]['train_iter'] > 0
    assert (tmp_path / 'agent' / 'ckpt' / 'eval.pth.tar').is_file()

    batch = agent.batch_evaluate(env_num=2, n_evaluator_episode=4)
    assert batch.eval_value > 0 and batch.eval_value_std >= 0
    assert agent.batch_evaluate(env_num=2, n_evaluator_episode=4) == batch  # evaluation reseeds its envs

    deployed = agent.best.deploy(enable_save_replay=True)
    gif = Image.open(tmp_path / 'agent' / 'videos' / 'deploy.gif')
    total = 0
    for i in range(gif.n_frames):
        gif.seek(i)
        total += gif.info['duration']
    assert total == (int(deployed.eval_value) + 1) * 40  # a frame per step plus the first, 25 fps


def test_best_names_a_truncated_checkpoint(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from ding.bonus import DQNAgent
    from ding.utils.checkpoint_io import CheckpointError
    agent = DQNAgent(env_id='CartPole-v1', seed=1, exp_name='agent')
    ckpt = tmp_path / 'agent' / 'ckpt'
    ckpt.mkdir(parents=True, exist_ok=True)
    (ckpt / 'eval.pth.tar').write_bytes(b'PK\x03\x04 cut short')
    with pytest.raises(CheckpointError, match='eval.pth.tar is not a readable checkpoint'):
        agent.best
