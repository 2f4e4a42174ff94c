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
    ctx = OnlineRLContext(strict=True)
    assert wiring_problems([mw('a', reads=('trajectory', ))], ctx) == [
        'middleware #0 a uses ctx.trajectory, which the strict OnlineRLContext does not declare'
    ]
    # a custom name is fine on a default ctx, but a read of it nothing wrote is still reported
    assert wiring_problems([mw('a', reads=('trajectory', ))], OnlineRLContext()) == [
        'middleware #0 a reads ctx.trajectory but no middleware before it writes it'
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


def test_custom_names_in_table_check_and_ctx(fresh_task):
    fns = [mw('scorer', reads=('trajectories', ), writes=('episode_score', )),
           mw('logger', reads=('episode_score', 'env_steps'))]
    ctx = OnlineRLContext()
    assert pipeline_table(fns, ctx).splitlines()[-1] == (
        'custom ctx names (not fields of OnlineRLContext): episode_score, env_steps')
    assert wiring_problems(fns, ctx) == [
        'middleware #0 scorer reads ctx.trajectories but no middleware before it writes it',
        'middleware #1 logger reads ctx.env_steps but no middleware before it writes it (did you mean ctx.env_step?)',
    ]
    seen = []

    def writer(c):
        c.trajectories = [1]
        c.env_steps = 3  # close to env_step, but a contract names it: declared by the task at run()

    def reader(c):
        seen.append((c.episode_score, c.env_steps))

    def score(c):
        c.episode_score = len(c.trajectories)

    with task.start(ctx=OnlineRLContext()):
        task.use(contract(writer, writes=('trajectories', 'env_steps')))
        task.use(contract(score, reads=('trajectories', ), writes=('episode_score', )))
        task.use(contract(reader, reads=('episode_score', 'env_steps')))
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            task.run(2)
        assert 'env_steps' in task.ctx.declared_names
    assert seen == [(1, 3), (1, 3)]
