import os

import pytest
from easydict import EasyDict

from ding.framework import ding_init
from ding.utils import writer


@pytest.fixture(autouse=True)
def no_writer(monkeypatch):
    monkeypatch.setattr(writer, '_current', None)
    yield
    if writer._current is not None:
        writer._current.close()


def test_get_writer_before_ding_init_fails():
    assert not writer.has_writer()
    with pytest.raises(RuntimeError, match='ding_init'):
        writer.get_writer()


def test_ding_init_sets_up_a_lazy_writer_under_exp_name(tmp_path):
    exp = str(tmp_path / 'cartpole_dqn_seed0')
    run_writer = ding_init(EasyDict(exp_name=exp))
    assert writer.get_writer() is run_writer
    assert writer.RunWriter.get_instance() is run_writer
    assert run_writer.logdir == os.path.join(exp, 'log')
    assert not os.path.exists(run_writer.logdir)  # nothing written before the first scalar
    run_writer.add_scalar('basic/eval_episode_return_mean', 1.5, 10)
    run_writer.flush()
    assert any(f.startswith('events.out.tfevents') for f in os.listdir(run_writer.logdir))


def test_ding_init_needs_exp_name():
    with pytest.raises(KeyError, match='exp_name'):
        ding_init(EasyDict(seed=0))
