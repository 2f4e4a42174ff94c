"""Build and run the training pipeline of a compiled config: the one used by `ding train`,
`ding resume`, `ding -m serial...` and the `ding.bonus` agents. `build_pipeline` chooses the
stages that collect and learn; the distributed roles and dizoo's entries take theirs from it too.

The pipeline follows from the policy's config, as the dizoo entries write it by hand:
  offpolicy  evaluator -> [eps_greedy] -> StepCollector(random warm-up) -> [nstep] ->
             data_pusher -> OffPolicyLearner   (prioritized replay when policy.priority)
  gae_replay evaluator -> StepCollector -> gae_estimator(into the buffer) -> OffPolicyLearner
             (PPOOffPolicy, PPGOffPolicy: PPG's two phases sample two views of one buffer)
  onpolicy   evaluator -> StepCollector -> gae_estimator -> multistep_trainer
  episode    evaluator -> EpisodeCollector -> montecarlo_return_estimator -> trainer (PG)
  sqil       evaluator -> [eps_greedy] -> StepCollector(random warm-up) -> sqil_data_pusher(reward 0)
             -> OffPolicyLearner(half agent rows, half demonstrations with reward 1)
and around it: [StopOnSignals (the CLI's Ctrl-C)], RunStateSaver (first, for exact resume),
progress_reporter, online_logger, CkptSaver, termination_checker, final_ctx_saver.
"""
import contextlib
import logging
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, List, Optional

from ding.entry.interrupt import StopOnSignals
from ding.utils.run_dir import RunDir

logger = logging.getLogger('ding.entry')
PIPELINE_KINDS = ('offpolicy', 'gae_replay', 'onpolicy', 'episode', 'sqil')
# Policies that replay transitions whose advantages GAE computed at collection: their config
# cannot tell, their type can.
GAE_REPLAY_POLICIES = ('ppo_offpolicy', 'ppg_offpolicy')
# Policies that imitate demonstrations (`policy.collect.data_path`, `ding train --dataset`) while
# they collect: SQIL relabels the data, the update is SQL's or SAC's.
IMITATION_POLICIES = ('sqil', 'sqil_sac')


@dataclass
class RunOptions:
    """How to run: bounds, checkpoint frequency (env steps), resume, live progress."""
    max_env_step: Optional[int] = None
    max_train_iter: Optional[int] = None
    checkpoint_freq: int = 10000
    ckpt_train_freq: int = 1000
    keep_checkpoints: Optional[int] = None  # iteration_*.pth.tar files kept (None: all)
    resume: bool = False
    progress: bool = True  # the live progress line (the progress files are always written)
    stop_on_signals: bool = False  # SIGINT/SIGTERM: checkpoint at the step's end, raise RunInterrupted (the CLI)
    kind: Optional[str] = None  # None: from the policy config
    after_eval: tuple = ()  # middlewares run right after the evaluator (`ding tune` reports and prunes there)
    async_mode: bool = False  # overlap collection with training (task.start(async_mode=True))
    max_lag: int = 1  # async: steps collection may run ahead of training (task.start's max_lag)


@dataclass
class RunParts:
    """What a pipeline acts on; the agents keep it between train() and deploy()."""
    policy: Any
    buffer: Any
    collector_env: Any
    evaluator_env: Any
    demonstrations: Any = None  # SQIL's expert buffer (ding/data/demonstrations.py)

    def close(self) -> None:
        for env in (self.collector_env, self.evaluator_env):
            if env is not None and not env.closed:
                env.close()


def pipeline_kind(cfg: Any) -> str:
    if cfg.policy.get('type') in GAE_REPLAY_POLICIES:
        return 'gae_replay'
    if cfg.policy.get('type') in IMITATION_POLICIES:
        return 'sqil'
    if not cfg.policy.get('on_policy', False):
        return 'offpolicy'
    if cfg.policy.collect.get('n_episode') and not cfg.policy.collect.get('n_sample'):
        return 'episode'
    return 'onpolicy'


def make_env_manager(cfg: Any, collect: bool, wrap: Optional[Callable[[Any], Any]] = None) -> Any:
    """The collector's (`collect`) or the evaluator's env manager; `wrap` wraps each env (e.g.
    `AllinObsWrapper`: Decision Transformer acts on the observation and the last reward)."""
    from ding.envs import create_env_manager, get_vec_env_setting
    env_cls, collector_cfgs, evaluator_cfgs = get_vec_env_setting(cfg.env, collect=collect, eval_=not collect)
    env_fns = [partial(env_cls, c) for c in (collector_cfgs or evaluator_cfgs)]
    if wrap is not None:
        env_fns = [partial(_wrapped_env, wrap, make) for make in env_fns]
    return create_env_manager(cfg.env.manager, env_fns)


def _wrapped_env(wrap: Callable[[Any], Any], make: Callable[[], Any]) -> Any:
    return wrap(make())


def make_policy(cfg: Any, enable_field: Optional[list] = None) -> Any:
    from ding.utils.registry import POLICY_REGISTRY
    return POLICY_REGISTRY.lookup(cfg.policy.type)(cfg.policy, enable_field=enable_field)


def build_parts(cfg: Any, kind: Optional[str] = None, policy: Any = None) -> RunParts:
    """Envs, then seeds, then the policy (its initial weights depend on the seed; an agent
    passes the one it keeps), then a replay buffer when the pipeline is off-policy."""
    from ding.utils import set_pkg_seed
    collector_env = make_env_manager(cfg, collect=True)
    evaluator_env = make_env_manager(cfg, collect=False)
    set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
    kind = kind or pipeline_kind(cfg)
    demonstrations = load_demonstrations(cfg) if kind == 'sqil' else None  # a bad file: before the policy
    if policy is None:
        policy = make_policy(cfg)
    buffer_ = make_replay_buffer(cfg) if kind in ('offpolicy', 'gae_replay', 'sqil') else None
    return RunParts(policy, buffer_, collector_env, evaluator_env, demonstrations)


def load_demonstrations(cfg: Any) -> Any:
    """SQIL's expert buffer from `policy.collect.data_path`. The keys of SQIL with an online
    expert, the expert's checkpoint (`collect.model_path`) and random steps labelled as
    expert (`expert_random_collect_size`), are refused here rather than ignored."""
    from ding.config.schema import ConfigValueError
    from ding.data.demonstrations import demonstration_buffer
    collect = cfg.policy.collect
    if collect.get('model_path'):
        raise ConfigValueError(f'policy.collect.model_path={collect.model_path!r} names an online expert '
                               f'to imitate while it trains; this pipeline learns from recorded demonstrations: set it '
                               f'to None and give policy.collect.data_path (ding train --dataset, a file from ding '
                               f'collect)')
    if cfg.policy.get('expert_random_collect_size'):
        raise ConfigValueError(f'policy.expert_random_collect_size={cfg.policy.expert_random_collect_size} would '
                               f'label random actions as expert; this pipeline\'s expert rows are the demonstrations '
                               f'only: set it to 0')
    if cfg.policy.get('nstep', 1) > 1:
        raise ConfigValueError(f'policy.nstep={cfg.policy.nstep}: SQIL relabels single transitions (reward 1 for '
                               f'the expert, 0 for the agent); set it to 1')
    if not collect.get('data_path'):
        raise ConfigValueError(f'{cfg.policy.type} learns from demonstrations: set policy.collect.data_path to a '
                               f'dataset file (ding train --dataset PATH; make one with ding collect EXPERT_RUN)')
    return demonstration_buffer(collect.data_path)


def make_replay_buffer(cfg: Any) -> Any:
    """The off-policy replay buffer of `cfg`, prioritized when the policy asks for it."""
    from ding.utils.registry import BUFFER_REGISTRY
    replay = cfg.policy.other.replay_buffer  # `type`: 'deque' (also 'naive'), 'frame' (pixel replay), ...
    if replay.get('multi_buffer'):  # one storage the size of the largest view (learner_buffers)
        return BUFFER_REGISTRY.lookup('deque')(size=max(replay[name].replay_buffer_size for name in _views(replay)))
    buffer_ = BUFFER_REGISTRY.lookup(replay.get('type') or 'deque')(size=replay.replay_buffer_size)
    if cfg.policy.get('priority', False):
        buffer_.use(prioritized_replay(buffer_, cfg))
    return buffer_


def prioritized_replay(buffer_: Any, cfg: Any) -> Any:
    """PER for a policy with `priority=True` (it returns new priorities); importance weights
    when it asks for them (`priority_IS_weight`). The replay_buffer keys alpha, beta and
    anneal_step set the exponents and beta's annealing, where the policy config has them."""
    from ding.data import PriorityExperienceReplay
    replay = cfg.policy.other.replay_buffer
    return PriorityExperienceReplay(buffer_, IS_weight=bool(cfg.policy.get('priority_IS_weight', False)),
                                    priority_power_factor=replay.get('alpha', 0.6),
                                    IS_weight_power_factor=replay.get('beta', 0.4),
                                    IS_weight_anneal_train_iter=replay.get('anneal_step', int(1e5)))


def _views(replay: Any) -> list:
    return [name for name, value in replay.items() if isinstance(value, dict) and 'replay_buffer_size' in value]


def learner_buffers(cfg: Any, buffer_: Any) -> Any:
    """What OffPolicyLearner samples: the buffer, or with `replay_buffer.multi_buffer` (PPG) a
    dict of views of it, one per phase (`policy`, `value`), each sampling the last
    `replay_buffer_size` slots of the storage (its newest items once the buffer is full; before,
    what has reached those slots), each item at most `max_use` times."""
    from ding.data.buffer.middleware import sample_range_view, use_time_check
    replay = cfg.policy.other.replay_buffer
    if not replay.get('multi_buffer'):
        return buffer_
    views = {}
    for name in _views(replay):
        view = buffer_.view()
        view.use(use_time_check(view, max_use=replay[name].get('max_use', float('inf'))))
        if replay[name].replay_buffer_size < buffer_.size:
            view.use(sample_range_view(view, start=-replay[name].replay_buffer_size))
        views[name] = view
    return views


def _random_collect_size(cfg: Any) -> int:
    return int(cfg.policy.get('random_collect_size', 0) or 0)


def make_collector(cfg: Any, parts: RunParts, kind: str) -> Any:
    """The collector stage of the pipeline `kind` (its state goes in a run's checkpoint)."""
    from ding.framework import middleware as mw
    collect_mode = parts.policy.collect_mode
    if kind in ('offpolicy', 'sqil'):
        return mw.StepCollector(cfg, collect_mode, parts.collector_env, random_collect_size=_random_collect_size(cfg))
    if kind in ('onpolicy', 'gae_replay'):
        return mw.StepCollector(cfg, collect_mode, parts.collector_env)
    if kind == 'episode':
        return mw.EpisodeCollector(cfg, collect_mode, parts.collector_env)
    raise ValueError(f'unknown pipeline kind {kind!r}; valid: {PIPELINE_KINDS}')


def make_nstep_stage(cfg: Any, kind: str) -> Any:
    """The n-step stage of an off-policy pipeline, or None. It holds each env's last rows until
    their window is known: a run's checkpoint keeps them."""
    from ding.framework import middleware as mw
    return mw.nstep_reward_enhancer(cfg) if kind == 'offpolicy' and cfg.policy.get('nstep', 1) > 1 else None


def build_pipeline(cfg: Any, parts: RunParts, kind: Optional[str] = None, role: str = 'all', collector: Any = None,
                   nstep: Any = None, log_freq: Optional[int] = None) -> List[Callable]:
    """The stages that collect and learn, in order, for the pipeline `kind` (the config's by
    default; see the module doc): `role` 'collector' or 'learner' is that node's share of a
    distributed run, 'all' a one-process run's. A caller that checkpoints the collector or the
    n-step stage passes the ones it keeps. `ding train`, the distributed roles and dizoo's
    entries all build their pipelines here."""
    from ding.entry.learner_hooks import log_train_freq
    from ding.framework import middleware as mw
    if role not in ('all', 'collector', 'learner'):
        raise ValueError(f"role must be 'all', 'collector' or 'learner', got {role!r}")
    kind = kind or pipeline_kind(cfg)
    if kind not in PIPELINE_KINDS:
        raise ValueError(f'unknown pipeline kind {kind!r}; valid: {PIPELINE_KINDS}')
    policy, buffer_ = parts.policy, parts.buffer
    stages = []
    if role in ('all', 'collector'):
        if kind in ('offpolicy', 'sqil') and cfg.policy.other.get('eps'):
            stages.append(mw.eps_greedy_handler(cfg))
        stages.append(make_collector(cfg, parts, kind) if collector is None else collector)
        nstep = make_nstep_stage(cfg, kind) if nstep is None else nstep
        if nstep is not None:
            stages.append(nstep)
    if role in ('all', 'learner'):
        log_freq = log_freq or log_train_freq(cfg, 100)
        if kind == 'offpolicy':
            stages += [mw.data_pusher(cfg, buffer_), mw.OffPolicyLearner(cfg, policy.learn_mode, buffer_)]
        elif kind == 'sqil':  # half the batch from the agent's rows (reward 0), half demonstrations (reward 1)
            mixed = [(buffer_, 0.5), (parts.demonstrations, 0.5)]
            stages += [mw.sqil_data_pusher(cfg, buffer_, expert=False),
                       mw.OffPolicyLearner(cfg, policy.learn_mode, mixed)]
        elif kind == 'gae_replay':
            stages += [mw.gae_estimator(cfg, policy.collect_mode, buffer_),
                       mw.OffPolicyLearner(cfg, policy.learn_mode, learner_buffers(cfg, buffer_))]
        elif kind == 'onpolicy':
            stages += [mw.gae_estimator(cfg, policy.collect_mode),
                       mw.multistep_trainer(policy.learn_mode, log_freq=log_freq)]
        else:  # 'episode'
            stages += [mw.montecarlo_return_estimator(policy), mw.trainer(cfg, policy.learn_mode, log_freq=log_freq)]
    return stages


def normalises_in_env(cfg: Any) -> bool:
    """Whether `cfg.env.env_wrapper` puts a running normaliser (`obs_norm`, `reward_norm`) in each env."""
    from ding.envs.env_wrappers.build import wrapper_specs
    specs = wrapper_specs(cfg.env.get('env_wrapper'), cfg.env.get('env_id'))
    names = [spec if isinstance(spec, str) else spec.get('type') if isinstance(spec, dict) else None for spec in specs]
    return any(name in ('obs_norm', 'reward_norm') for name in names)


def _normalizers_to_evaluator(cfg: Any, parts: RunParts) -> Callable:
    """The evaluator's envs are frozen normalisers that have seen nothing: before each step the
    evaluator evaluates (its own rule), they get the collector's statistics, or evaluation would
    act on raw observations. Only then: envs in workers are pickled for it."""
    from ding.envs.env_wrappers.norm_sync import sync_env_normalizers
    from ding.framework.middleware.evaluator import evaluation_due
    eval_freq = int(cfg.policy.eval.evaluator.eval_freq)

    def normalizers_to_evaluator(ctx: Any) -> None:
        if evaluation_due(ctx, eval_freq) and not parts.collector_env.closed and not parts.evaluator_env.closed:
            sync_env_normalizers(parts.collector_env, parts.evaluator_env)

    return normalizers_to_evaluator


def run_training(cfg: Any, parts: RunParts, options: RunOptions) -> Any:
    """Run the pipeline until a bound, the stop value, or the end; returns the ctx. In async
    mode the run-state checkpoints wait for no step in flight (RunStateSaver)."""
    from ding.framework import ding_init, task
    from ding.framework import middleware as mw
    from ding.framework.context import OnlineRLContext
    from ding.utils.threads import apply_default_torch_threads
    apply_default_torch_threads()  # one intra-op thread unless the user chose (ding/utils/threads.py)
    kind = options.kind or pipeline_kind(cfg)
    run_dir = RunDir(cfg.exp_name)
    ding_init(cfg)
    nstep = make_nstep_stage(cfg, kind)
    from ding.entry import learner_hooks
    learner_hooks.load_before_run(cfg, parts.policy, options.resume)
    ckpt_saver = mw.CkptSaver(parts.policy, run_dir.root,
                              train_freq=learner_hooks.ckpt_train_freq(cfg, options.ckpt_train_freq),
                              keep_last=options.keep_checkpoints)
    # a resumed run replaces eval.pth.tar only with a better evaluation (a void stand-in has no state)
    extra = {'ckpt_saver': ckpt_saver} if hasattr(ckpt_saver, 'state_dict') else {}
    if nstep is not None:
        extra['nstep_reward_enhancer'] = nstep
    # EpisodeCollector's running episodes, the policy's transition recorder where it has one
    collector = make_collector(cfg, parts, kind)
    random_size = _random_collect_size(cfg) if kind in ('offpolicy', 'sqil') else 0
    if options.max_env_step is not None and random_size > options.max_env_step:
        logger.warning('policy.random_collect_size=%d is over the budget of %d env steps: the random warm-up '
                       'is collected whole before the budget is checked', random_size, options.max_env_step)
    if hasattr(collector, 'state_dict'):
        extra['collector'] = collector
    # a recurrent policy's collect mode keeps each env's hidden state: the in-flight episodes need it
    if getattr(parts.policy.collect_mode, 'keeps_episode_state', False):
        extra['collect_mode'] = parts.policy.collect_mode
    if parts.demonstrations is not None:  # read again from the file on resume; its draws go on
        from ding.data.demonstrations import SamplerState
        extra['demonstrations'] = SamplerState(parts.demonstrations)
    saver = mw.RunStateSaver(run_dir.root, parts.policy, parts.buffer, parts.collector_env,
                             every_env_step=options.checkpoint_freq, resume=options.resume, extra=extra)
    stop = StopOnSignals(saver, run_dir.root) if options.stop_on_signals else None
    started = task.start(async_mode=options.async_mode, ctx=OnlineRLContext(), max_lag=options.max_lag)
    with started, stop or contextlib.nullcontext():
        if stop is not None:
            task.use(stop)  # before the saver: its post-yield part runs after the saver's
        task.use(saver)
        task.use(mw.progress_reporter(run_dir.root, max_env_step=options.max_env_step, show=options.progress))
        if normalises_in_env(cfg):
            task.use(_normalizers_to_evaluator(cfg, parts))
        task.use(mw.interaction_evaluator(cfg, parts.policy.eval_mode, parts.evaluator_env))
        for hook in options.after_eval:
            task.use(hook)
        for stage in build_pipeline(cfg, parts, kind, collector=collector, nstep=nstep):
            task.use(stage)
        task.use(mw.online_logger(train_show_freq=learner_hooks.log_train_freq(cfg, 100)))
        task.use(ckpt_saver)
        task.use(mw.termination_checker(max_env_step=options.max_env_step, max_train_iter=options.max_train_iter))
        task.use(mw.final_ctx_saver(run_dir.root))
        task.run()
        return task.ctx
