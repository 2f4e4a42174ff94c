"""env_manager.type='auto': probe the candidates, build the fastest, say why."""
import logging
import multiprocessing

import gymnasium
import numpy as np

from ding.envs import BaseEnvManagerV2, DingEnvWrapper, SubprocessEnvManagerV2
from ding.envs.env_manager.auto_env_manager import AutoEnvManager, applicable_candidates, explain
from ding.envs.env_manager.factory import create_env_manager


def test_auto_builds_a_closed_candidate_that_gives_the_seeded_data(caplog):
    fns = [lambda: DingEnvWrapper(gymnasium.make('CartPole-v1')) for _ in range(2)]
    cfg = dict(type='auto', auto_candidates=('base_v2', 'subprocess'), auto_probe_steps=20, auto_warmup_steps=2,
               worker_num=2, auto_serial_enough_us=0)  # probe the workers however cheap the env
    with caplog.at_level(logging.INFO, logger='ding.envs.env_manager.auto_env_manager'):
        m = create_env_manager(cfg, fns)
    report = m.auto_report
    assert sorted(report['env_steps_per_s']) == ['base_v2', 'subprocess']
    assert type(m) is {'base_v2': BaseEnvManagerV2, 'subprocess': SubprocessEnvManagerV2}[report['picked']]
    assert m.closed and f"picked {report['picked']!r} for 2 envs" in caplog.text
    serial = BaseEnvManagerV2(fns)
    for env in (m, serial):
        env.seed(4)
        env.launch()
    assert np.array_equal(m.ready_obs, serial.ready_obs)  # probing consumed no seeded episode
    m.close()
    serial.close()
    assert multiprocessing.active_children() == []


def test_candidates_and_explanation():
    assert applicable_candidates(('base_v2', 'subprocess', 'gym_vector'), 1) == ['base_v2']
    text = explain(dict(picked='subprocess', env_steps_per_s={'base_v2': 1000.0, 'subprocess': 2500.0},
                        skipped={}, probe_steps=200), 8)
    assert text == ("env_manager auto: picked 'subprocess' for 8 envs: env steps/s over 200 random-action steps: "
                    "subprocess 2,500, base_v2 1,000 (2.50x the next)")


def test_default_config_carries_every_candidate_key():
    cfg = AutoEnvManager.default_config()
    assert cfg.type == 'auto' and cfg.worker_num is None and cfg.vector == 'async' and cfg.episode_num == float('inf')


def test_cheap_serial_steps_settle_it_without_starting_a_worker(caplog):
    fns = [lambda: DingEnvWrapper(gymnasium.make('CartPole-v1')) for _ in range(2)]
    cfg = dict(type='auto', auto_candidates=('base_v2', 'subprocess', 'gym_vector'), auto_probe_steps=40,
               auto_warmup_steps=2, worker_num=2, auto_serial_enough_us=1e6)
    with caplog.at_level(logging.INFO, logger='ding.envs.env_manager.auto_env_manager'):
        m = create_env_manager(cfg, fns)
    report = m.auto_report
    assert type(m) is BaseEnvManagerV2 and list(report['env_steps_per_s']) == ['base_v2']
    assert sorted(report['skipped']) == ['gym_vector', 'subprocess']
    assert 'worker processes cannot pay' in report['skipped']['subprocess'] and 'skipped' in caplog.text
    assert multiprocessing.active_children() == []
