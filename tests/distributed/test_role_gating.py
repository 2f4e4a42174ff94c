"""Role gating without Ray: with an active router, built-in middleware whose role the node lacks
is `task.void()`, as in DI-engine; standalone runs and nodes with the role get the real one."""
import pytest
from easydict import EasyDict

from ding.framework import task
from ding.framework.middleware import (CkptSaver, OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler,
                                       interaction_evaluator, online_logger, trainer)
from ding.framework.router import Router


class ActiveRouter(Router):
    is_active = True
    node_id = 3


@pytest.fixture
def distributed_task():
    saved = task.router
    task.router = ActiveRouter()
    task.start()
    yield task
    task.stop()
    task.router = saved


def _builders():
    cfg = EasyDict(seed=0, env=dict(n_evaluator_episode=1, stop_value=1),
                   policy=dict(learn=dict(update_per_collect=1, batch_size=2), collect=dict(n_sample=2),
                               eval=dict(evaluator=dict(eval_freq=1)),
                               other=dict(eps=dict(type='exp', start=1., end=0.1, decay=10))))
    return {
        'collector': [lambda: StepCollector(cfg, object(), object()), lambda: eps_greedy_handler(cfg)],
        'learner': [lambda: data_pusher(cfg, object()), lambda: OffPolicyLearner(cfg, object(), object()),
                    lambda: trainer(cfg, object()), lambda: online_logger()],
        'evaluator': [lambda: interaction_evaluator(cfg, object(), object())],
    }


def _gated(build):
    """True when the factory handed back task.void(); a real construction (which may reject these
    stand-in arguments) means it was not gated."""
    try:
        mw = build()
    except (AttributeError, TypeError, KeyError, ValueError):
        return False
    return getattr(mw, '__name__', None) == '_void'


@pytest.mark.parametrize('role', ['collector', 'learner', 'evaluator'])
def test_only_the_nodes_role_keeps_its_middleware(distributed_task, role):
    task.add_role(role)
    for owner, builders in _builders().items():
        for build in builders:
            assert _gated(build) == (owner != role), (role, owner)
    assert _gated(lambda: CkptSaver(object(), '/tmp/unused')) == (role == 'collector')  # learner or evaluator


def test_standalone_runs_every_middleware():
    assert not task.router.is_active
    for builders in _builders().values():
        for build in builders:
            assert not _gated(build)


def test_only_rank_0_of_data_parallel_learners_writes_checkpoints(monkeypatch, tmp_path):
    from ding.utils import dist
    assert not _gated(lambda: CkptSaver(object(), str(tmp_path)))
    monkeypatch.setattr(dist, 'get_rank', lambda: 1)
    assert _gated(lambda: CkptSaver(object(), str(tmp_path)))


def test_a_users_subclass_inherits_its_bases_gate(distributed_task):
    class MyLearner(OffPolicyLearner):
        pass

    task.add_role('collector')
    assert _gated(lambda: MyLearner(EasyDict(policy=dict(learn=dict(update_per_collect=1))), object(), object()))
    task.add_role('learner')
    assert not _gated(lambda: MyLearner(EasyDict(policy=dict(learn=dict(update_per_collect=1))), object(), object()))


def test_gated_middleware_copies_and_unpickles_as_an_instance(tmp_path):
    import copy
    import pickle
    saver = CkptSaver(object(), str(tmp_path))
    assert type(copy.copy(saver)) is CkptSaver
    assert type(pickle.loads(pickle.dumps(StepCollector.__new__(StepCollector)))) is StepCollector


def test_gated_refuses_a_class_and_names_the_base():
    from ding.framework.middleware import _common
    with pytest.raises(TypeError, match='derive it from Gated'):
        _common.gated('learner')(type('Learnerish', (), {}))
