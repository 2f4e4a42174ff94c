import warnings

import pytest

from ding.framework import OnlineRLContext, PipelineWiringWarning, task
from ding.framework.contract import contract
from ding.framework.pipeline_table import pipeline_table, wiring_problems


def mw(name, reads=(), writes=(), fresh_weights=False):

    def _fn(ctx):
        pass

    return contract(_fn, reads=reads, writes=writes, name=name, fresh_weights=fresh_weights)


def test_table_lists_each_middleware():
    fns = [
        mw('collector', writes=('trajectories', 'env_step')),
        mw('learner', reads=('trajectories', ), writes=('train_iter', ), fresh_weights=True),
        lambda ctx: None,
    ]
    assert pipeline_table(fns).splitlines() == [
        '#  middleware               reads         writes',
        '-  -----------------------  ------------  ----------------------',
        '0  collector                -             trajectories, env_step',
        '1  learner [fresh weights]  trajectories  train_iter',
        '2  <lambda>                 ?             ?',
    ]


def test_read_before_write_is_reported():
    ctx = OnlineRLContext()
    fns = [mw('learner', reads=('train_data', 'train_iter')), mw('fetcher', writes=('train_data', ))]
    assert wiring_problems(fns, ctx) == [
        'middleware #0 learner reads ctx.train_data but no middleware before it writes it'
    ]
    assert wiring_problems(list(reversed(fns)), ctx) == []


def test_undeclared_field_and_undeclared_contract():
    ctx = OnlineRLContext()
    assert wiring_problems([mw('a', reads=('trajectory', ))], ctx) == [
        'middleware #0 a uses ctx.trajectory, which OnlineRLContext does not declare'
    ]
    # after a middleware without a contract anything may have been written: no warning
    assert wiring_problems([lambda ctx: None, mw('b', reads=('train_data', ))], ctx) == []


def test_run_warns_at_start(fresh_task):
    with task.start(ctx=OnlineRLContext()):
        task.use(mw('pusher', reads=('trajectories', )))
        assert 'pusher' in task.pipeline_table()
        with pytest.warns(PipelineWiringWarning, match='pusher reads ctx.trajectories'):
            task.run(1)
    with task.start(ctx=OnlineRLContext()):
        task.use(mw('collector', writes=('trajectories', ))).use(mw('pusher', reads=('trajectories', )))
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            task.run(1)


def test_wrappers_and_combinators_keep_contracts(fresh_task):
    a = mw('a', writes=('train_data', ))
    b = mw('b', reads=('train_data', 'env_step'), writes=('train_output', ))
    combined = task.serial(a, b)
    assert (combined.reads, combined.writes) == (('env_step', ), ('train_data', 'train_output'))
    assert task.parallel(a, b).reads == ('train_data', 'env_step')
    with task.start():
        task.use(b, lock=True)
        task.use_wrapper(lambda fn: (lambda ctx: fn(ctx)))
        (wrapped, ) = task.middlewares
        assert (wrapped.reads, wrapped.middleware_name) == (('train_data', 'env_step'), 'b')
