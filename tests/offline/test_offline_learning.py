"""Offline learning on locally made datasets (nothing downloaded):
- Pendulum "medium": 50 episodes (10k transitions) of our SAC expert with half its actions
  replaced by uniform ones (mean return about -730; the expert's own sampled actions about -245,
  uniform actions about -1225). IQL and TD3+BC, each through `serial_pipeline_offline` with its dizoo config,
  reach an evaluation return of -400 within their update budget.
- CartPole-v0: 20 episodes of our DQN expert with eps 0.2; BC reaches 195.
Measured once each (seed 0, evaluations every 500 updates), with the configs' batch of 256:
IQL -322 after 3000 updates; TD3+BC (alpha 10) -319 after 5000; CQL -325 after 1000 and -102
after 3500, but at ~80 ms an update here (its penalty evaluates 30 sampled actions per state) it
is left to the DI-engine example test."""
import copy
import importlib

import pytest

from ding.entry import serial_pipeline_offline

pytest.importorskip('h5py')


@pytest.fixture(scope='module')
def pendulum_medium(tmp_path_factory):
    from dizoo.classic_control.pendulum.entry.pendulum_make_dataset import make_dataset
    root = tmp_path_factory.mktemp('pendulum')
    info = make_dataset(str(root / 'medium.hdf5'), kind='medium', episodes=50, expert_dir=str(root / 'expert'))
    assert -900 < info['mean_return'] < -500, info  # a "medium" dataset: well above random, far below expert
    return info['path']


def run_config(module: str, data_path: str, exp_name: str, stop_value: float, max_train_iter: int,
               model: dict = None, **learn):
    config = importlib.import_module(module)
    main, create = copy.deepcopy(config.main_config), copy.deepcopy(config.create_config)
    main.exp_name = exp_name
    main.env.stop_value = stop_value
    main.policy.cuda = False
    main.policy.collect.data_path = data_path
    main.policy.eval.evaluator.eval_freq = 500
    main.policy.learn.update(learn)
    main.policy.model.update(model or {})
    return serial_pipeline_offline((main, create), seed=0, max_train_iter=max_train_iter, save_cfg=False).final_ctx


@pytest.mark.slow
@pytest.mark.parametrize('algo, budget, learn', [
    ('iql', 5000, {}),
    # DI-engine's alpha=2.5 leans on half-random behaviour here (about -640 after 5000 updates): a larger alpha
    ('td3_bc', 6000, {'alpha': 10.0}),
])
def test_pendulum_medium_reaches_minus_400(pendulum_medium, tmp_path, algo, budget, learn):
    # budget + 1: the run ends once train_iter passes max_train_iter, before the evaluation of the
    # budget's last update (eval_freq 500); with + 1 that evaluation counts (TD3+BC: -462 at 5,500
    # updates, -321 at 6,000, on this machine on 2026-11-28)
    ctx = run_config(f'dizoo.classic_control.pendulum.config.pendulum_{algo}_config', pendulum_medium,
                     str(tmp_path / algo), stop_value=-400, max_train_iter=budget + 1, **learn)
    assert ctx.last_eval_value >= -400, f'{algo}: last evaluation {ctx.last_eval_value} after {ctx.train_iter}'


@pytest.mark.slow
def test_pendulum_medium_edac_reaches_minus_400(pendulum_medium, tmp_path):
    """EDAC with 5 critics of 64 units (measured once: -279 after 2250 updates, ~6 ms an update)."""
    ctx = run_config('dizoo.classic_control.pendulum.config.pendulum_edac_config', pendulum_medium,
                     str(tmp_path / 'edac'), stop_value=-400, max_train_iter=3500,
                     model=dict(actor_head_hidden_size=64, critic_head_hidden_size=64), learning_rate_policy=1e-3)
    assert ctx.last_eval_value >= -400, f'edac: last evaluation {ctx.last_eval_value} after {ctx.train_iter}'


@pytest.mark.slow
def test_cartpole_bc_reaches_195(tmp_path):
    from dizoo.classic_control.cartpole.entry.cartpole_make_dataset import make_dataset
    info = make_dataset(str(tmp_path / 'expert.hdf5'), episodes=20, eps=0.2, expert_dir=str(tmp_path / 'dqn'))
    ctx = run_config('dizoo.classic_control.cartpole.config.cartpole_bc_config', info['path'], str(tmp_path / 'bc'),
                     stop_value=195, max_train_iter=3000)
    assert ctx.last_eval_value >= 195
