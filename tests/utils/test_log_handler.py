"""Evaluation and training summaries show under ditk's logger (DI-engine's examples) and under
`logging.basicConfig(level=INFO)`, once each; with nothing set up, INFO stays quiet."""
import subprocess
import sys
import textwrap

import pytest

PIPELINE = textwrap.dedent('''
    import gymnasium as gym
    import torch
    from easydict import EasyDict
    from ding.envs import BaseEnvManagerV2, DingEnvWrapper
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import interaction_evaluator, trainer
    from ding.model import DQN
    from ding.policy import DQNPolicy

    pcfg = DQNPolicy.default_config()
    pcfg.model = dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[16])
    policy = DQNPolicy(pcfg, model=DQN(**pcfg.model))
    env = BaseEnvManagerV2([lambda: DingEnvWrapper(gym.make('CartPole-v1'))], BaseEnvManagerV2.default_config())
    cfg = EasyDict(seed=0, env=dict(n_evaluator_episode=1, stop_value=1e9), policy=pcfg)
    ctx = OnlineRLContext()
    interaction_evaluator(cfg, policy.eval_mode, env)(ctx)
    env.close()
    batch = dict(obs=torch.zeros(4, 4), next_obs=torch.zeros(4, 4), action=torch.zeros(4, dtype=torch.long),
                 reward=torch.zeros(4), done=torch.zeros(4))
    ctx.train_data = batch
    trainer(cfg, policy.learn_mode, log_freq=1)(ctx)
''')

SETUPS = {
    'ditk': 'from ditk import logging\nlogging.getLogger().setLevel(logging.INFO)\n',
    'basicConfig': 'import logging\nlogging.basicConfig(level=logging.INFO)\n',
    'nothing': '',
}


def run(setup):
    proc = subprocess.run([sys.executable, '-c', SETUPS[setup] + PIPELINE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout + proc.stderr


@pytest.mark.parametrize('setup', ['ditk', 'basicConfig'])
def test_summaries_are_visible_once(setup):
    out = run(setup)
    assert out.count('evaluation: env_step=0 train_iter=0 return mean=') == 1, out
    assert out.count('train_iter=1 ') == 1, out


@pytest.mark.slow  # kept out of `make test` (under 2 min); CI runs it
def test_info_stays_quiet_when_nothing_is_set_up():
    out = run('nothing')
    assert 'evaluation:' not in out and 'train_iter=1' not in out, out
