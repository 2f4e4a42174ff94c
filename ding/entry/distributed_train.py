"""`ding train --collectors N --learners M [--address HOST:PORT]`: the tuned pipeline on Ray.

Nodes (one Ray actor each, started by the launcher behind `ditask`): ids 0..M-1 are learners
(with M > 1 they train one model data-parallel: a torch.distributed group, gloo on CPU), id M
the evaluator, the rest the N collectors. Collector i sends its data to learner i mod M, so
every learner trains on its own stream; every learner counts every collector's steps.

  learner    [RunStateSaver] ContextExchanger ModelExchanger [data_pusher OffPolicyLearner |
             gae_estimator multistep_trainer] online_logger [CkptSaver] termination_checker
  evaluator  ContextExchanger ModelExchanger progress_reporter interaction_evaluator CkptSaver
             termination_checker final_ctx_saver
  collector  ContextExchanger ModelExchanger [eps_greedy] StepCollector [nstep]

(bracketed: only where the pipeline kind needs it; RunStateSaver and the iteration CkptSaver on
learner rank 0 only). The run directory is the same as for a one-process run. `ding resume`
launches a distributed run again on Ray (`ResumePoint`): learner rank 0 restores its whole run
state, the other learners its learner state and counters, the evaluator the counters and the
best evaluation so far, each collector the weights and its share of the env steps; the
collector envs start fresh episodes.

Settings come from the `distributed:` section of the config (`--config` JSON or the YAML) and
flags override them:
  distributed:
    collectors: 2          learners: 1           address: null       pin_cpus: false
    collector: {num_cpus: 0, num_gpus: 0, torch_threads: 1, resources: {}}
    learner:   {...}       evaluator: {...}
`num_cpus`/`num_gpus` are Ray reservations (fractions allowed); 0 lets actors share cores.
"""
import contextlib
import copy
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional

from easydict import EasyDict

from ding.entry.arguments import UsageError

SECTION = 'distributed'
PLAN_KEYS = ('collectors', 'learners', 'address', 'pin_cpus', 'collector', 'learner', 'evaluator')
ROLES = ('learner', 'evaluator', 'collector')
SUPPORTED_KINDS = ('offpolicy', 'onpolicy')


@dataclass
class ResumePoint:
    """What the nodes of a resumed distributed run start from (read once by the driver from the run
    state learner rank 0 restores): its kept ctx counters, the learner state, the best evaluation so
    far (the evaluator replaces `eval.pth.tar` only with a better one)."""
    ctx: Dict[str, Any]
    policy: Dict[str, Any]
    best_eval: float


@dataclass
class DistributedPlan:
    collectors: int = 0
    learners: int = 1
    address: Optional[str] = None
    pin_cpus: bool = False
    role_options: Dict[str, Dict[str, Any]] = field(default_factory=lambda: {r: {} for r in ROLES})

    @property
    def active(self) -> bool:
        return self.collectors > 0

    @property
    def n_workers(self) -> int:
        return self.learners + 1 + self.collectors

    def role_of(self, index: int) -> str:
        if index < self.learners:
            return 'learner'
        return 'evaluator' if index == self.learners else 'collector'

    def learner_for(self, index: int) -> int:
        """The learner a collector (by its index) sends its data to."""
        return (index - self.learners - 1) % self.learners

    def workers(self) -> List[Any]:
        from ding.framework.distributed.placement import WorkerOptions
        roles = [self.role_of(i) for i in range(self.n_workers)]
        return [WorkerOptions.from_mapping({'pin_cpu': self.pin_cpus, **(self.role_options.get(role) or {})},
                                           where=f'{SECTION}.{role}') for role in roles]

    def to_dict(self) -> Dict[str, Any]:
        return {'collectors': self.collectors, 'learners': self.learners, 'address': self.address,
                'pin_cpus': self.pin_cpus, **copy.deepcopy(self.role_options)}


def plan_from(section: Optional[Mapping[str, Any]], args: Any) -> DistributedPlan:
    """The config's `distributed` section with the command line's flags on top."""
    section = dict(section or {})
    unknown = sorted(set(section) - set(PLAN_KEYS))
    if unknown:
        raise UsageError(f'unknown key(s) {unknown} in the `{SECTION}` config section; valid: {list(PLAN_KEYS)}')
    plan = DistributedPlan(collectors=int(section.get('collectors') or 0), learners=int(section.get('learners') or 1),
                           address=section.get('address'), pin_cpus=bool(section.get('pin_cpus', False)),
                           role_options={r: dict(section.get(r) or {}) for r in ROLES})
    for name in ('collectors', 'learners', 'address'):
        value = getattr(args, name, None)
        if value is not None:
            setattr(plan, name, value)
    if getattr(args, 'pin_cpus', False):
        plan.pin_cpus = True
    per_role_flags = (('cpus_per_collector', 'collector', 'num_cpus'), ('gpus_per_learner', 'learner', 'num_gpus'))
    for flag, role, key in per_role_flags:
        value = getattr(args, flag, None)
        if value is not None:
            plan.role_options[role][key] = value
    threads = getattr(args, 'torch_threads', None)
    if threads is not None:
        for role in ROLES:
            plan.role_options[role]['torch_threads'] = threads
    if plan.learners > 1 and plan.collectors == 0:
        raise UsageError('--learners needs --collectors N (N >= 1): a distributed run collects on its own nodes')
    if plan.active and plan.collectors < plan.learners:
        raise UsageError(f'{plan.collectors} collector(s) for {plan.learners} learners: each learner needs at '
                         f'least one collector feeding it')
    if plan.active:
        try:
            plan.workers()
        except ValueError as err:
            raise UsageError(str(err)) from err
    return plan


def launch_training(cfg: Any, main_cfg: Mapping, create_cfg: Mapping, seed: int, options: Any,
                    plan: DistributedPlan, resume: Optional[ResumePoint] = None) -> Dict[int, Dict[str, Any]]:
    """Run the pipeline on the plan's nodes (from `resume` when given); returns {node id: its final
    counters} (a node that died while the run was ending: None)."""
    from ding.entry.pipeline import pipeline_kind
    from ding.framework.distributed.launcher import launch
    kind = pipeline_kind(cfg)
    if kind not in SUPPORTED_KINDS:
        raise UsageError(f'a distributed run needs an off-policy or on-policy pipeline (n_sample); this config '
                         f'makes a {kind!r} one')
    if kind == 'onpolicy' and plan.learners > 1:
        # an on-policy learner makes as many updates as its step's data allows; ranks fed different
        # amounts would all-reduce a different number of times and wait on each other for ever
        raise UsageError('--learners > 1 needs an off-policy pipeline (a fixed number of updates per step); '
                         'an on-policy run takes one learner and any number of collectors')
    from ding.config.io import to_plain
    from ding.framework.distributed.placement import PlacementError
    plain = dict(main_cfg=to_plain(main_cfg), create_cfg=to_plain(create_cfg), seed=seed, options=options, plan=plan,
                 resume=resume)
    # the evaluator node writes the progress rows; the driver shows them as a one-process run does
    from ding.entry.distributed_progress import ProgressTail
    tail = ProgressTail(cfg.exp_name, options.max_env_step, after_env_step=-1 if resume is None else
                        int(resume.ctx['env_step'])) if options.progress else contextlib.nullcontext()
    if resume is None:  # Ray takes a while to start the nodes: say what is happening (a resume says it)
        print(f'starting {plan.learners} learner(s), 1 evaluator and {plan.collectors} collector(s) on Ray', flush=True)
    try:
        with tail:
            results = launch('ding.entry.distributed_train.node_main', n_parallel_workers=plan.n_workers,
                             topology='mesh', node_ids=list(range(plan.n_workers)), address=plan.address,
                             workers=plan.workers(), kwargs=plain, sigterm_as_interrupt=options.stop_on_signals)
    except PlacementError as err:
        raise UsageError(str(err)) from err
    except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM on the driver: every node was ended
        from ding.entry.interrupt import distributed_run_interrupted
        from ding.framework.distributed.launcher import received_signal
        raise distributed_run_interrupted(received_signal(stop), cfg.exp_name) from None
    return results


def final_counters(results: Dict[int, Optional[Dict[str, Any]]], plan: DistributedPlan) -> EasyDict:
    """The run's totals, as a one-process run's final ctx has them. Learners and the evaluator each
    count the collectors' steps as news reaches them, so each may lag the others at the end: the
    highest count of each is the run's; the last evaluation is the evaluator's."""
    counted = [results.get(i) or {} for i in range(plan.learners + 1)]  # learners, then the evaluator
    totals = {key: max(int(r.get(key, 0)) for r in counted) for key in ('env_step', 'train_iter', 'env_episode')}
    return EasyDict(totals, last_eval_value=counted[-1].get('last_eval_value'))


def node_main(main_cfg: Dict[str, Any], create_cfg: Dict[str, Any], seed: int, options: Any,
              plan: DistributedPlan, resume: Optional[ResumePoint] = None) -> Dict[str, Any]:
    """What every node runs: its role follows from its node id (see the module doc)."""
    from ding.config import compile_config
    from ding.entry.distributed_nodes import run_node
    from ding.framework import task
    index = task.router.node_id
    role = plan.role_of(index)
    # collectors and the evaluator seed their envs apart; learners start from rank 0's weights
    node_seed = seed if role == 'learner' else seed + index
    cfg = compile_config(EasyDict(main_cfg), create_cfg=EasyDict(create_cfg), auto=True, seed=node_seed,
                         save_cfg=False, renew_dir=False)
    ddp = contextlib.nullcontext()
    if role == 'learner' and plan.learners > 1:
        cfg.policy.multi_gpu = True
        ddp = task.router.ddp_context(list(range(plan.learners)))
    with ddp:
        route = plan.learner_for(index) if role == 'collector' else None
        return run_node(cfg, options, role, rank=index if role == 'learner' else 0, learner=route, resume=resume,
                        collectors=plan.collectors)
