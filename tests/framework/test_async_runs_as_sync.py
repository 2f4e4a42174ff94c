"""async_mode=True where overlap cannot pay: no stage waits outside the GIL (envs in this
process, a learner on the CPU), max_lag 0, or an on-policy learner last. The steps then run
one after another on the calling thread, backward parts included, as in sync mode
(async_pipeline.why_sync); a stage that waits outside the GIL lets them overlap."""
import logging
import threading

from ding.framework import OnlineRLContext, task
from ding.framework.async_pipeline import why_sync
from ding.framework.contract import contract


def stage(name, log, waits=False):

    def _mw(ctx):
        log.append((name, 'forward', ctx.total_step, threading.current_thread().name))
        yield
        threading.Event().wait(0.002)  # handed to a pool, the next step would start meanwhile
        log.append((name, 'backward', ctx.total_step, threading.current_thread().name))

    return contract(_mw, name=name, waits_outside_gil=waits)


def test_why_sync_names_the_reason():
    log = []
    assert 'no middleware waits outside the GIL' in why_sync([stage('collect', log), stage('learn', log)], 1)
    assert why_sync([stage('collect', log, waits=True), stage('learn', log)], 1) is None
    assert why_sync([lambda ctx: None, stage('learn', log)], 1) is None  # no contract: it may wait
    assert why_sync([stage('collect', log, waits=True), stage('learn', log)], 0) == 'max_lag is 0'
    ppo = contract(lambda ctx: None, name='ppo_learner', fresh_weights=True)
    assert 'ppo_learner, needs fresh weights' in why_sync([stage('collect', log, waits=True), ppo], 1)


def test_steps_that_cannot_overlap_run_in_order_on_the_calling_thread(fresh_task, caplog):
    log = []
    with caplog.at_level(logging.WARNING, 'ding.framework.task'):
        with task.start(async_mode=True, ctx=OnlineRLContext()):
            task.use(stage('collect', log)).use(stage('learn', log))
            task.run(3)
    me = threading.current_thread().name
    expected = []
    for s in range(3):
        expected += [('collect', 'forward', s, me), ('learn', 'forward', s, me), ('learn', 'backward', s, me),
                     ('collect', 'backward', s, me)]
    assert log == expected
    assert 'steps run one after another, as in sync mode: no middleware waits outside the GIL' in caplog.text


def test_a_stage_that_waits_outside_the_gil_lets_steps_overlap(fresh_task):
    log = []
    with task.start(async_mode=True, ctx=OnlineRLContext()):
        task.use(stage('collect', log, waits=True)).use(stage('learn', log))
        task.run(3)
    threads = {thread for *_, thread in log}
    assert threading.current_thread().name not in threads
    assert {'ding-stage-collect', 'ding-stage-learn'} <= threads
