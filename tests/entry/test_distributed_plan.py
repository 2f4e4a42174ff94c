"""`ding train --collectors/--learners`: the plan from the config's `distributed` section and
the flags, its node layout, and the errors a user can fix (no Ray started here)."""
import argparse

import pytest

from ding.entry.arguments import Parser, UsageError
from ding.entry.distributed_train import plan_from
from ding.framework.distributed.placement import PlacementError, WorkerOptions, check_fits


def args(*argv):
    from ding.entry import train
    parser = Parser(prog='ding train')
    train.add_arguments(parser)
    return parser.parse_args(['--algo', 'dqn', '--env', 'CartPole-v0', *argv])


def test_no_collectors_means_one_process():
    assert not plan_from(None, args()).active


def test_layout_learners_then_evaluator_then_collectors_each_routed_to_one_learner():
    plan = plan_from(None, args('--collectors', '5', '--learners', '2'))
    assert plan.n_workers == 8
    assert [plan.role_of(i) for i in range(8)] == ['learner'] * 2 + ['evaluator'] + ['collector'] * 5
    assert [plan.learner_for(i) for i in range(3, 8)] == [0, 1, 0, 1, 0]


def test_config_section_gives_settings_and_flags_override_them():
    section = {'collectors': 3, 'address': 'auto', 'collector': {'num_cpus': 0.25, 'torch_threads': 2},
               'learner': {'num_gpus': 0.5}}
    plan = plan_from(section, args())
    assert (plan.collectors, plan.learners, plan.address) == (3, 1, 'auto')
    workers = plan.workers()
    assert workers[0].num_gpus == 0.5 and workers[0].torch_threads == 1
    assert workers[2].num_cpus == 0.25 and workers[2].torch_threads == 2
    plan = plan_from(section, args('--collectors', '2', '--cpus-per-collector', '0.5', '--gpus-per-learner', '0',
                                   '--torch-threads', '3', '--pin-cpus'))
    workers = plan.workers()
    assert plan.collectors == 2 and len(workers) == 4
    assert workers[0].num_gpus == 0 and workers[3].num_cpus == 0.5
    assert {w.torch_threads for w in workers} == {3} and all(w.pin_cpu for w in workers)
    assert workers[0].actor_options() == {'num_cpus': 0.0}
    assert WorkerOptions(num_cpus=0.5, num_gpus=1, resources={'big': 1}).actor_options() == {
        'num_cpus': 0.5, 'num_gpus': 1.0, 'resources': {'big': 1}}


@pytest.mark.parametrize('section, argv, message', [
    ({'colectors': 2}, (), "unknown key(s) ['colectors']"),
    ({'collectors': 2, 'collector': {'cpus': 1}}, (), "distributed.collector: unknown key(s) ['cpus']"),
    ({'collectors': 2, 'learner': {'torch_threads': 0}}, (), 'torch_threads must be an integer >= 1'),
    (None, ('--collectors', '1', '--learners', '2'), 'each learner needs at least one collector'),
    (None, ('--learners', '2'), '--learners needs --collectors'),
])
def test_mistakes_name_their_cause(section, argv, message):
    with pytest.raises(UsageError, match=message.replace('[', r'\[').replace(']', r'\]').replace('(', r'\(')
                       .replace(')', r'\)')):
        plan_from(section, args(*argv))


def test_bad_numbers_on_the_command_line():
    with pytest.raises(UsageError, match='must be a number >= 0'):
        args('--collectors', '2', '--cpus-per-collector', '-1')
    with pytest.raises(UsageError, match='must be a positive integer'):
        args('--collectors', '0')


class FakeRay:

    def __init__(self, resources):
        self.resources = resources

    def cluster_resources(self):
        return self.resources


def test_requests_the_cluster_can_never_hold_are_refused_before_any_actor_starts():
    workers = [WorkerOptions(num_cpus=1), WorkerOptions(num_cpus=0.75, resources={'collector_host': 1})]
    check_fits(FakeRay({'CPU': 2.0, 'collector_host': 1.0}), workers)
    with pytest.raises(PlacementError, match=r'CPU: 1.75 asked, 1 in the cluster'):
        check_fits(FakeRay({'CPU': 1.0, 'collector_host': 1.0}), workers)
    with pytest.raises(PlacementError, match=r'collector_host: 1 asked, 0 in the cluster'):
        check_fits(FakeRay({'CPU': 4.0}), workers)
    with pytest.raises(PlacementError, match=r'GPU: 1 asked'):
        check_fits(FakeRay({'CPU': 4.0}), [WorkerOptions(num_gpus=1)])


def test_several_learners_are_refused_for_an_on_policy_pipeline():
    from ding.config import compile_config
    from ding.entry.distributed_train import launch_training
    from ding.entry.pipeline import RunOptions
    from ding.entry.train import resolve_config
    main, create, _ = resolve_config('ppo', 'CartPole-v1', None)
    cfg = compile_config(main, create_cfg=create, auto=True, seed=0, save_cfg=False)
    plan = plan_from(None, args('--collectors', '2', '--learners', '2'))
    with pytest.raises(UsageError, match='--learners > 1 needs an off-policy pipeline'):
        launch_training(cfg, main, create, 0, RunOptions(), plan)  # refused before Ray starts
