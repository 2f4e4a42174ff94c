import threading

import pytest

from ding.framework import OnlineRLContext, task
from ding.framework.contract import contract


def counting_pipeline(log):
    """evaluator -> collector -> pusher -> learner -> logger, as contracts declare them; the
    collector stands for envs stepping in other processes, so async mode overlaps the steps."""

    def evaluator(ctx):
        if ctx.train_iter - ctx.last_eval_iter >= 10:
            ctx.last_eval_iter = ctx.train_iter
            ctx.last_eval_value = float(ctx.train_iter)

    def collector(ctx):
        ctx.env_step += 8
        ctx.env_episode += ctx.total_step % 2
        ctx.trajectories = [ctx.total_step] * 8

    def pusher(ctx):
        log.append(('push', ctx.total_step, len(ctx.trajectories)))
        ctx.trajectories = None

    def learner(ctx):
        ctx.train_iter += 5
        yield
        ctx.train_output = {'iter': ctx.train_iter}

    def logger(ctx):
        log.append(('log', ctx.total_step, ctx.env_step))

    return [
        contract(evaluator, reads=('train_iter', 'last_eval_iter'), writes=('last_eval_iter', 'last_eval_value')),
        contract(collector, writes=('env_step', 'env_episode', 'trajectories'), waits_outside_gil=True),
        contract(pusher, reads=('trajectories', ), writes=('trajectories', )),
        contract(learner, reads=('train_iter', ), writes=('train_iter', 'train_output')),
        contract(logger, reads=('env_step', )),
    ]


def run_counters(async_mode, steps=20, max_lag=1):
    log = []
    with task.start(async_mode=async_mode, ctx=OnlineRLContext(), max_lag=max_lag):
        for fn in counting_pipeline(log):
            task.use(fn)
        task.run(steps)
        ctx = task.ctx
        return (ctx.total_step, ctx.env_step, ctx.env_episode, ctx.train_iter, ctx.last_eval_iter), log


@pytest.mark.parametrize('max_lag', [0, 1, 3])
def test_async_counters_equal_sync(fresh_task, max_lag):
    sync, sync_log = run_counters(False)
    got, async_log = run_counters(True, max_lag=max_lag)
    assert sync == (19, 160, 10, 100, 90)
    assert got[:4] == sync[:4]
    # the evaluator may see train_iter up to max_lag learner steps late: last_eval_iter is a
    # multiple of 5 within 5 * max_lag + 10 of the final train_iter
    assert got[4] % 5 == 0 and 100 - got[4] <= 10 + 5 * max_lag
    pushes = [e for e in sync_log if e[0] == 'push']
    assert pushes == [('push', k, 8) for k in range(20)]
    assert [e for e in async_log if e[0] == 'push'] == pushes  # each ctx carried its own data
    # the logger of step k sees env_step after the collector of step k, or of a later step
    # already in flight (kept counters are shared, newest value)
    logs = [e for e in async_log if e[0] == 'log']
    assert [k for _, k, _ in logs] == list(range(20))
    assert all(8 * (k + 1) <= env_step <= 8 * (k + 1 + max_lag) for _, k, env_step in logs)


def test_each_step_passes_every_middleware_in_order_with_reverse_backward(fresh_task):
    log, lock = [], threading.Lock()

    def stage(name):

        def _mw(ctx):
            with lock:
                log.append((ctx.total_step, name + '>'))
            yield
            with lock:
                log.append((ctx.total_step, '<' + name))

        return _mw

    with task.start(async_mode=True):
        for name in 'abc':
            task.use(stage(name))
        task.run(6)
        assert task.ctx.total_step == 5
        assert task.finish is True
    for step in range(6):
        assert [e for s, e in log if s == step] == ['a>', 'b>', 'c>', '<c', '<b', '<a']


def overlap_probe(max_lag):
    """True when stage 0 of step 1 ran while stage 1 of step 0 was still running."""
    step1_started = threading.Event()
    seen = []

    def first(ctx):
        if ctx.total_step == 1:
            step1_started.set()

    def second(ctx):
        if ctx.total_step == 0:
            seen.append(step1_started.wait(timeout=0.5 if max_lag == 0 else 10))

    with task.start(async_mode=True, max_lag=max_lag, ):
        task.use(first).use(second)
        task.run(2)
    return seen[0]


def test_steps_overlap_with_lag_1_and_not_with_lag_0(fresh_task):
    assert overlap_probe(max_lag=1) is True
    assert overlap_probe(max_lag=0) is False


def test_lag_bounds_steps_in_flight(fresh_task):
    in_flight, peak, lock = [0], [0], threading.Lock()

    def enter(ctx):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])

    def slow(ctx):
        threading.Event().wait(0.002)

    def leave(ctx):
        with lock:
            in_flight[0] -= 1

    for lag in (0, 2):
        peak[0] = 0
        with task.start(async_mode=True, max_lag=lag, ):
            task.use(enter).use(slow).use(slow).use(leave)
            task.run(30)
        assert 1 <= peak[0] <= lag + 1


def test_fresh_weights_stage_is_never_overtaken(fresh_task):
    events, lock = [], threading.Lock()

    def collector(ctx):
        with lock:
            events.append(('collect', ctx.total_step))

    def learner(ctx):
        threading.Event().wait(0.002)
        with lock:
            events.append(('learn', ctx.total_step))

    def logger(ctx):
        threading.Event().wait(0.002)

    with task.start(async_mode=True, max_lag=3, ):
        task.use(collector).use(contract(learner, fresh_weights=True)).use(logger)
        task.run(10)
    expected = [e for s in range(10) for e in (('collect', s), ('learn', s))]
    assert events == expected


@pytest.mark.parametrize('where', [0, 2])
def test_exception_surfaces_and_no_thread_survives(fresh_task, where):
    before = threading.active_count()

    def ok(ctx):
        pass

    def broken(ctx):
        if ctx.total_step == 3:
            raise KeyError('bad step')

    fns = [ok, ok, ok]
    fns[where] = broken
    with task.start(async_mode=True):
        for fn in fns:
            task.use(fn)
        with pytest.raises(KeyError, match='bad step'):
            task.run(100)
        assert threading.active_count() == before
    assert threading.active_count() == before


def test_finish_from_first_stage_stops_like_sync(fresh_task):
    done = []

    def stopper(ctx):
        if ctx.total_step == 4:
            task.finish = True

    def last(ctx):
        done.append(ctx.total_step)

    with task.start(async_mode=True):
        task.use(stopper).use(last)
        task.run(100)
        assert task.ctx.total_step == 4
    assert done == [0, 1, 2, 3, 4]


def test_finish_from_last_stage_drains_at_most_lag_steps(fresh_task):
    done = []

    def first(ctx):
        pass

    def stopper(ctx):
        done.append(ctx.total_step)
        if ctx.total_step == 4:
            task.finish = True

    with task.start(async_mode=True, max_lag=1):
        task.use(first).use(stopper)
        task.run(100)
    assert done in ([0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 5])


def test_custom_keep_and_wrap_work_in_async_mode(fresh_task):
    log, lock = [], threading.Lock()

    def inner(ctx):
        yield
        with lock:
            log.append(('inner-back', ctx.total_step))

    wrapped = task.wrap(inner)

    def keeper(ctx):
        if ctx.total_step == 0:
            ctx.keep('info_for_logging')
            ctx.info_for_logging = {'runs': 0}
        wrapped(ctx)

    def counter(ctx):
        ctx.info_for_logging['runs'] += 1

    with task.start(async_mode=True, ctx=OnlineRLContext()):
        task.use(keeper).use(counter)
        task.run(5)
        assert task.ctx.info_for_logging == {'runs': 5}
    assert sorted(log) == [('inner-back', s) for s in range(5)]


@pytest.mark.parametrize('lock', [True, threading.Lock()])
def test_lock_excludes_stages_running_different_steps(fresh_task, lock):
    inside, peak, guard = [0], [0], threading.Lock()

    def busy(ctx):
        with guard:
            inside[0] += 1
            peak[0] = max(peak[0], inside[0])
        threading.Event().wait(0.002)
        with guard:
            inside[0] -= 1

    def middle(ctx):
        pass

    with task.start(async_mode=True, n_async_workers=5, max_lag=2):
        assert (task.n_async_workers, task.max_lag) == (5, 2)
        task.use(busy, lock=lock).use(middle).use(busy, lock=lock)
        task.run(20)
    assert peak[0] == 1


def test_max_lag_must_not_be_negative(fresh_task):
    with pytest.raises(ValueError, match='max_lag'):
        task.start(async_mode=True, max_lag=-1)


def test_kept_changes_made_in_backward_parts_are_counted(fresh_task):
    seen = []

    def counter(ctx):
        ctx.train_iter += 1
        yield
        ctx.train_iter += 10
        ctx.last_eval_value = float(ctx.total_step)

    def reader(ctx):
        seen.append(ctx.train_iter)

    with task.start(async_mode=True, ctx=OnlineRLContext()):
        task.use(reader).use(counter)
        task.run(12)
        assert (task.ctx.train_iter, task.ctx.last_eval_value) == (132, 11.0)
    # the reader of step k sees at least every backward part of step k - 2 (max_lag 1)
    assert all(11 * (k - 1) <= got <= 11 * k for k, got in enumerate(seen))


def test_two_contracts_writing_one_kept_field_are_refused_at_run(fresh_task):
    def collector(ctx):
        ctx.env_step += 1

    def my_collector(ctx):
        ctx.env_step += 1

    with task.start(async_mode=True, ctx=OnlineRLContext()):
        task.use(contract(collector, writes=('env_step', ))).use(contract(my_collector, writes=('env_step', 'obs')))
        with pytest.raises(ValueError, match="kept ctx field 'env_step' is written by both 'collector' and "
                           "'my_collector'"):
            task.run(3)
    counter = contract(collector, writes=('env_step', ))
    with task.start(async_mode=True, ctx=OnlineRLContext()):  # one middleware registered twice: two stages
        task.use(counter).use(counter)
        with pytest.raises(ValueError, match="'env_step' is written by both 'collector' and 'collector'"):
            task.run(3)
    with task.start(async_mode=False, ctx=OnlineRLContext()):  # sync mode runs them in order: allowed
        task.use(contract(collector, writes=('env_step', ))).use(contract(my_collector, writes=('env_step', )))
        task.run(3)
        assert task.ctx.env_step == 6


def test_a_field_written_by_two_contracts_that_is_not_kept_is_allowed(fresh_task):
    # `obs` lives for one step: each step's ctx has its own, so two writers do not race
    def first(ctx):
        ctx.obs = 1

    def second(ctx):
        ctx.obs += 1
        ctx.env_step += 1

    with task.start(async_mode=True, ctx=OnlineRLContext()):
        task.use(contract(first, writes=('obs', ), waits_outside_gil=True))
        task.use(contract(second, reads=('obs', ), writes=('obs', 'env_step')))
        task.run(4)
        assert task.ctx.env_step == 4


def test_middlewares_without_a_contract_publish_what_they_change(fresh_task):
    # DI-engine-style middlewares declare nothing: a change to a kept field is published after
    # the call, and the counters end as in sync mode
    def run(async_mode):
        def collector(ctx):
            ctx.env_step += 3
            ctx.env_episode = ctx.env_step // 6

        def learner(ctx):
            ctx.train_iter += 2
            yield
            ctx.last_eval_value = float(ctx.train_iter)

        with task.start(async_mode=async_mode, ctx=OnlineRLContext(), max_lag=2):
            task.use(collector).use(learner)
            task.run(15)
            return task.ctx.env_step, task.ctx.env_episode, task.ctx.train_iter, task.ctx.last_eval_value

    assert run(True) == run(False) == (45, 7, 30, 30.0)
