"""Offline learning on locally made datasets (nothing downloaded):
- CartPole-v0: 20 episodes of our DQN expert with eps 0.2 (dizoo's cartpole_make_dataset); BC
  reaches 195 through `serial_pipeline_offline`.
- The Pendulum "medium" runs (IQL, TD3+BC, EDAC to -400 on 50 episodes of a SAC expert with half
  its actions uniform) are the offline tuned pairs' now: tests/learning/test_tuned_pairs.py trains
  them through `ding train --dataset` on a dataset `ding collect` makes from a held-out SAC run.
Measured once each on dizoo's pendulum_make_dataset (seed 0, evaluations every 500 updates), batch 256:
IQL -322 after 3000 updates; TD3+BC (alpha 10) -319 after 5000; CQL -325 after 1000 and -102
after 3500, but at ~80 ms an update here (its penalty evaluates 30 sampled actions per state) it
is left to the DI-engine example test."""
import copy
import importlib

import pytest

from ding.entry import serial_pipeline_offline

pytest.importorskip('h5py')


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
def test_cartpole_bc_reaches_195(tmp_path):
    from dizoo.classic_control.cartpole.entry.cartpole_make_dataset import make_dataset
    info = make_dataset(str(tmp_path / 'expert.hdf5'), episodes=20, eps=0.2, expert_dir=str(tmp_path / 'dqn'))
    ctx = run_config('dizoo.classic_control.cartpole.config.cartpole_bc_config', info['path'], str(tmp_path / 'bc'),
                     stop_value=195, max_train_iter=3000)
    assert ctx.last_eval_value >= 195
