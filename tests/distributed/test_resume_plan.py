"""`ding resume` of a distributed run, without Ray: the plan it resumes on, the best evaluation
the evaluator goes on judging against, what each node restores at its first step, and a resumed
collector sending only its new env steps. (The whole run, killed and resumed on Ray:
tests/distributed/test_train_cli.py.)"""
import argparse
import json
import math
from types import SimpleNamespace

import pytest

from ding.entry.arguments import UsageError
from ding.entry.distributed_nodes import resumed_node
from ding.entry.distributed_train import ResumePoint
from ding.entry.resume import best_eval_so_far, distributed_plan
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import _common
from ding.framework.roles import Role
from ding.utils.run_dir import RunDir

RECORDED = {'collectors': 2, 'learners': 1, 'address': None, 'pin_cpus': False, 'collector': {'torch_threads': 1},
            'learner': {}, 'evaluator': {}}


def flags(**values):
    return argparse.Namespace(**{'collectors': None, 'learners': None, 'address': None, 'one_process': False,
                                 **values})


def test_a_distributed_run_resumes_on_its_recorded_plan_unless_told_otherwise():
    plan = distributed_plan({'distributed': RECORDED}, flags())
    assert (plan.collectors, plan.learners, plan.role_options['collector']) == (2, 1, {'torch_threads': 1})
    assert distributed_plan({'distributed': RECORDED}, flags(collectors=4)).collectors == 4
    assert distributed_plan({'distributed': RECORDED}, flags(one_process=True)) is None
    assert distributed_plan({}, flags()) is None  # a one-process run stays one
    assert distributed_plan({}, flags(collectors=3)).collectors == 3  # or goes out on Ray
    with pytest.raises(UsageError, match='--async'):
        distributed_plan({'async_mode': True}, flags(collectors=2))
    with pytest.raises(UsageError, match='offline run'):
        distributed_plan({'offline': True}, flags(collectors=2))
    with pytest.raises(UsageError, match='each learner needs at least one collector'):
        distributed_plan({'distributed': RECORDED}, flags(learners=3))


def test_the_best_evaluation_so_far_comes_from_the_run_state_or_the_rows_up_to_it(tmp_path):
    rd = RunDir(str(tmp_path))
    rows = [{'env_step': 100, 'eval_return_mean': 20.0}, {'env_step': 200, 'eval_return_mean': None},
            {'env_step': 300, 'eval_return_mean': 35.0}, {'env_step': 400, 'eval_return_mean': 90.0}]
    with open(rd.result_json, 'w') as f:
        f.write(''.join(json.dumps(r) + '\n' for r in rows))
    assert best_eval_so_far(rd, {'ctx': {'env_step': 300}}) == 35.0  # the row after the checkpoint is not counted
    assert best_eval_so_far(rd, {'ctx': {'env_step': 50}}) == -math.inf
    one_process = {'ctx': {'env_step': 300}, 'extra': {'ckpt_saver': {'best_eval': 12.5, 'last_save_iter': 0}}}
    assert best_eval_so_far(rd, one_process) == 12.5


class RecordingMode:

    def __init__(self):
        self.loaded = None

    def load_state_dict(self, state):
        self.loaded = state


def resume_first_step(role, collectors=3):
    policy = SimpleNamespace(learn_mode=RecordingMode(), collect_mode=RecordingMode())
    point = ResumePoint(ctx={'env_step': 1000, 'env_episode': 40, 'train_iter': 250, 'total_step': 9},
                        policy={'model': 'weights'}, best_eval=10.0)
    ctx = OnlineRLContext()
    middleware = resumed_node(point, role, policy, collectors)
    middleware(ctx)
    ctx.env_step += 5  # the step's own work; a second call restores nothing
    middleware(ctx)
    return ctx, policy


def test_each_node_restores_what_it_goes_on_from_at_its_first_step():
    ctx, policy = resume_first_step('learner')  # a data-parallel rank > 0
    assert (ctx.env_step, ctx.train_iter, ctx.total_step) == (1005, 250, 10)
    assert policy.learn_mode.loaded == {'model': 'weights'} and policy.collect_mode.loaded is None
    ctx, policy = resume_first_step('evaluator')
    assert (ctx.env_step, ctx.env_episode, ctx.train_iter) == (1005, 40, 250)
    assert policy.learn_mode.loaded is None and policy.collect_mode.loaded is None
    ctx, policy = resume_first_step('collector')  # its share: each collector counts its own steps
    assert (ctx.env_step, ctx.env_episode, ctx.train_iter) == (333 + 5, 13, 0)
    assert policy.collect_mode.loaded == {'model': 'weights'}


def test_a_resumed_collector_sends_only_the_steps_it_collected(monkeypatch):
    from ding.framework.distributed.exchangers import ContextExchanger
    sent = []
    task = SimpleNamespace(roles={Role.COLLECTOR}, router=SimpleNamespace(node_id=3), finish=False,
                           on=lambda event, fn: None, emit=lambda event, payload, only_remote: sent.append(payload))
    monkeypatch.setattr(_common, 'current_task', lambda: task)
    exchanger = ContextExchanger(skip_n_iter=1)
    ctx = OnlineRLContext(env_step=333, env_episode=13)  # its share, as resumed_node left it
    for collected in (8, 8):
        step = exchanger(ctx)
        next(step)
        ctx.env_step += collected
        ctx.env_episode += 1
        with pytest.raises(StopIteration):
            next(step)
    assert [(p['env_step'], p['env_episode']) for p in sent] == [(8, 1), (8, 1)]


def test_the_summary_takes_the_highest_count_of_the_learners_and_the_evaluator():
    from ding.entry.distributed_train import final_counters, plan_from
    plan = plan_from({'collectors': 2, 'learners': 2}, flags())
    results = {0: {'env_step': 4008, 'train_iter': 2370, 'env_episode': 90},
               1: {'env_step': 3990, 'train_iter': 2370, 'env_episode': 89},
               2: {'env_step': 3984, 'train_iter': 2365, 'env_episode': 91, 'last_eval_value': 180.5},
               3: {'env_step': 2100}, 4: None}  # a collector counts its own; one died as the run ended
    final = final_counters(results, plan)
    assert (final.env_step, final.train_iter, final.env_episode, final.last_eval_value) == (4008, 2370, 91, 180.5)


def test_a_plan_refused_at_resume_leaves_run_json_as_it_was(tmp_path, monkeypatch):
    from ding.entry.pipeline import RunOptions
    from ding.entry.resume import resume_run
    from ding.entry.train import resolve_config, start_run
    from ding.framework.middleware.run_state import read_run_state, write_run_state
    monkeypatch.chdir(tmp_path)
    main, create, info = resolve_config('ppo', 'CartPole-v1', None)
    start_run(main, create, info, 0, RunOptions(max_env_step=600, checkpoint_freq=300, progress=False), 'run')
    rd = RunDir('run')
    state = read_run_state(rd.run_state)[0]
    state['finished'] = False  # as if killed after this checkpoint
    write_run_state(state, rd.run_state, keep_previous=False)
    before = open(rd.run_json).read()
    with pytest.raises(UsageError, match='--learners > 1 needs an off-policy pipeline'):
        resume_run('run', progress=False, flags=flags(collectors=2, learners=2))  # refused before Ray starts
    assert open(rd.run_json).read() == before
