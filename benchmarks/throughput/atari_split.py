"""Atari Pong at real cost: where an env step's time goes, and what async_mode and Ray buy there.

Nothing sleeps: PongNoFrameskip-v4 through ale-py with DeepMind's wrappers (dizoo's AtariEnv),
a Nature CNN (conv 32-64-64, fc 512, no dueling), uint8 frame-once replay for DQN.

Workloads (`--workload`), each at a fixed number of updates per env step (`ratio`):
- dqn_standard: DQN at the standard replay ratio, one update of 32 per 4 env steps;
- dqn_balanced: DQN with the updates per env step chosen so that, in sync mode, collecting
  and training take about equal time (`--balanced-ratio`, or derived from the split);
- impala: V-trace actor-critic on windows of 20 steps, 32 windows per update, each window
  learned once (the IMPALA paper's unroll and batch): 1/640 updates per env step, a window per
  env collected per step;
- impala_batch: the same, collecting the 32 windows of one update per step.

Parts (`--part`):
- split: each role's cost alone, per env step, in one process with one torch thread: an env
  step (8 envs stepped in turn in this process), the acting forward (a batch of 8), the whole
  collection (act, step, record, push into the replay), an update (ratio x one learner step,
  sampling included), the subprocess manager's wall time per env step (8 workers), and the
  object-store hop of a collected batch to another process (Ray). From these, `predict()`
  gives env steps/s for C cores and N collectors.
- runs: env steps/s over a timed window after a warm-up, in sync, async_mode=True, and on Ray
  with 1, 2 and 4 collectors + 1 learner. Every run keeps the workload's ratio: the learner
  owes round(ratio x env_steps) updates and pays them whatever the pattern of arrival.

    python benchmarks/throughput/atari_split.py --part split runs --workload dqn_balanced impala
Writes benchmarks/results/atari_split.json (`--out`); docs/atari.md is
generated from every atari_split*.json (docs/gen/atari_page.py).
"""
import argparse
import copy
import json
import os
import platform
import sys
import time
from typing import Any, Dict, Optional

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

NATURE_CNN = [32, 64, 64, 512]
N_ACTIONS = 6
WORKLOADS = {
    'dqn_standard': dict(algo='dqn', ratio=1 / 4),
    'dqn_balanced': dict(algo='dqn', ratio=None),  # chosen from the split (or --balanced-ratio)
    'impala': dict(algo='impala', ratio=1 / 640),
    # the same, collecting one update's 32 windows per step (n_sample = batch_size): a step then
    # trains once, so async's default max_lag=1 overlaps a whole update with a whole collection
    'impala_batch': dict(algo='impala', ratio=1 / 640, windows=32),
}
MODES = ('sync', 'async', 'ray1', 'ray2', 'ray4')
FRAMES_LABEL = {'': '', '_uint8': ' (uint8 frames)'}  # key suffix of a --frames uint8 row -> its label


def make_cfg(workload: str, cuda: bool, env_num: int, manager: str, seed: int = 0, frames: str = 'float') -> Any:
    """The compiled config of `workload`'s algorithm on Pong with the Nature CNN; `frames='uint8'`
    keeps the frames bytes end to end (AtariEnv's `scale=False`; the conv encoder divides by 255).
    IMPALA collects the workload's `windows` per step (default: one per env)."""
    from easydict import EasyDict

    from ding.config import compile_config
    from ding.utils.dicts import deep_merge
    algo, windows = WORKLOADS[workload]['algo'], WORKLOADS[workload].get('windows')
    if algo == 'dqn':
        from dizoo.atari.config.serial.pong import pong_dqn_config as mod
        main = deep_merge(mod.main_config, dict(
            env=dict(collector_env_num=env_num, evaluator_env_num=1, n_evaluator_episode=1),
            policy=dict(cuda=cuda, nstep=1, model=dict(encoder_hidden_size_list=NATURE_CNN, dueling=False),
                        learn=dict(update_per_collect=1, batch_size=32),
                        collect=dict(n_sample=8 * env_num),
                        other=dict(eps=dict(type='linear', start=0.1, end=0.1, decay=1),
                                   replay_buffer=dict(replay_buffer_size=50_000)))))
        create = copy.deepcopy(mod.create_config)
    else:
        from dizoo.classic_control.cartpole.config import cartpole_impala_config as mod
        main = deep_merge(mod.main_config, dict(
            env=dict(collector_env_num=env_num, evaluator_env_num=1, n_evaluator_episode=1,
                     env_id='PongNoFrameskip-v4', frame_stack=4, stop_value=21),
            policy=dict(cuda=cuda, unroll_len=20,
                        model=dict(obs_shape=[4, 84, 84], action_shape=N_ACTIONS, encoder_hidden_size_list=NATURE_CNN,
                                   actor_head_hidden_size=512, critic_head_hidden_size=512),
                        learn=dict(update_per_collect=1, batch_size=32, discount_factor=0.99),
                        collect=dict(n_sample=windows or env_num),  # windows of unroll_len steps per collection
                        other=dict(replay_buffer=dict(type='frame', replay_buffer_size=2_000, max_use=1)))))
        create = copy.deepcopy(mod.create_config)
        create.env = EasyDict(type='atari', import_names=['dizoo.atari.envs.atari_env'])
        create.replay_buffer = EasyDict(type='frame', import_names=['ding.data.buffer.frame_buffer'])
    create.env_manager = EasyDict(type=manager)
    main = EasyDict(main)
    main.env.scale = frames == 'float'
    main.exp_name = os.path.join(os.environ.get('TMPDIR', '/tmp'), f'atari_split_{algo}_{os.getpid()}')
    return compile_config(main, create_cfg=create, auto=True, seed=seed)


def make_parts(cfg: Any, with_env: bool = True, with_buffer: bool = True) -> tuple:
    from ding.entry.pipeline import make_env_manager, make_policy, make_replay_buffer
    from ding.utils import set_pkg_seed
    env = make_env_manager(cfg, collect=True) if with_env else None
    set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
    policy = make_policy(cfg)
    buffer_ = make_replay_buffer(cfg) if with_buffer else None
    return env, policy, buffer_


def ratio_learner(cfg: Any, policy: Any, buffer_: Any, ratio: float) -> Any:
    """The learner owes round(ratio * env_steps since the buffer first held a batch) updates and
    pays them in this step, however many collectors sent data meanwhile: every mode then trains
    at the same updates per env step."""
    from ding.framework.contract import contract
    from ding.framework.middleware import OffPolicyLearner
    learner = OffPolicyLearner(cfg, policy, buffer_, log_freq=0)
    start = []

    def _learn(ctx: Any) -> None:
        if not start:
            if buffer_.count() < cfg.policy.learn.batch_size:
                return
            start.append((ctx.env_step, ctx.train_iter))
        owed = round(ratio * (ctx.env_step - start[0][0])) - (ctx.train_iter - start[0][1])
        learner.updates = max(0, owed)
        learner(ctx)

    return contract(_learn, reads=('env_step', 'train_iter'), writes=('train_data', 'train_output', 'train_iter'),
                    name='ratio_learner')


class Window:
    """Env steps/s between `warmup` and `warmup + seconds` (wall clock, from the first step);
    sets task.finish at the end. Also the updates made in the window."""

    def __init__(self, warmup: float, seconds: float) -> None:
        self.warmup, self.seconds = warmup, seconds
        self.start: Optional[float] = None
        self.a: Optional[tuple] = None
        self.b: Optional[tuple] = None

    def middleware(self) -> Any:
        from ding.framework import task
        from ding.framework.contract import contract

        def _clock(ctx: Any) -> None:
            now = time.perf_counter()
            if self.start is None:
                self.start = now
            if self.a is None and now - self.start >= self.warmup:
                self.a = (now, ctx.env_step, ctx.train_iter)
            if self.a is not None and now - self.a[0] >= self.seconds:
                self.b = (now, ctx.env_step, ctx.train_iter)
                task.finish = True

        return contract(_clock, reads=('env_step', 'train_iter'), name='window_clock')

    def result(self) -> Dict[str, float]:
        (t0, s0, i0), (t1, s1, i1) = self.a, self.b
        return dict(env_steps_per_s=round((s1 - s0) / (t1 - t0), 1), updates_per_s=round((i1 - i0) / (t1 - t0), 2),
                    updates_per_env_step=round((i1 - i0) / max(1, s1 - s0), 5), window_s=round(t1 - t0, 1))


def one_process(workload: str, ratio: float, mode: str, args: Any) -> Dict[str, Any]:
    import torch

    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import StepCollector, data_pusher, eps_greedy_handler
    torch.set_num_threads(1)
    before = sys.getswitchinterval()
    if args.switch_interval is not None:  # how soon a thread waiting for the GIL gets it from one running Python
        sys.setswitchinterval(args.switch_interval)
    algo = WORKLOADS[workload]['algo']
    cfg = make_cfg(workload, args.cuda, args.envs, args.manager, frames=args.frames)
    env, policy, buffer_ = make_parts(cfg)
    window = Window(args.warmup, args.seconds)
    try:
        with task.start(async_mode=mode == 'async', ctx=OnlineRLContext(), max_lag=args.max_lag):
            if algo == 'dqn':
                task.use(eps_greedy_handler(cfg))
            task.use(StepCollector(cfg, policy.collect_mode, env))
            task.use(data_pusher(cfg, buffer_))
            task.use(ratio_learner(cfg, policy.learn_mode, buffer_, ratio))
            task.use(window.middleware())
            task.run()
    finally:
        env.close()
        sys.setswitchinterval(before)
    return window.result()


def node_main(workload: str, ratio: float, args: Any) -> Optional[Dict[str, Any]]:
    """One node of a Ray run: node 0 learns, the others collect (each with its own envs, stepped
    in its process: the collectors are the parallelism)."""
    import torch

    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import (ContextExchanger, ModelExchanger, StepCollector, data_pusher,
                                           eps_greedy_handler)
    torch.set_num_threads(1)
    algo = WORKLOADS[workload]['algo']
    learner = task.router.node_id == 0
    cfg = make_cfg(workload, args.cuda and learner, args.ray_envs, 'base', frames=args.frames)
    env, policy, buffer_ = make_parts(cfg, with_env=not learner, with_buffer=learner)
    window = Window(args.warmup, args.seconds)
    try:
        with task.start(ctx=OnlineRLContext()):
            task.add_role(task.role.LEARNER if learner else task.role.COLLECTOR)
            task.use(ContextExchanger(skip_n_iter=1))
            task.use(ModelExchanger(policy._model))
            if algo == 'dqn':
                task.use(eps_greedy_handler(cfg))
            task.use(StepCollector(cfg, policy.collect_mode, env))
            task.use(data_pusher(cfg, buffer_))
            if learner:
                task.use(ratio_learner(cfg, policy.learn_mode, buffer_, ratio))
                task.use(window.middleware())
            task.run()
    finally:
        if env is not None:
            env.close()
    return window.result() if learner else None


def on_ray(workload: str, ratio: float, collectors: int, args: Any) -> Dict[str, Any]:
    from ding.framework import Parallel
    results = Parallel.runner(n_parallel_workers=1 + collectors, topology='star')(node_main, workload, ratio, args)
    return results[0]


# ---- the split -------------------------------------------------------------------------------
def _timed(fn: Any, n: int, budget_s: float = 5.0) -> float:
    """Mean seconds of `fn()` over `n` calls after one warm-up call, or fewer once `budget_s` is spent."""
    fn()
    start = time.perf_counter()
    done = 0
    while done < n and (done < 3 or time.perf_counter() - start < budget_s):
        fn()
        done += 1
    return (time.perf_counter() - start) / done


def split(workload: str, ratio: Optional[float], args: Any) -> Dict[str, Any]:
    """Each role's seconds per env step, measured alone (one torch thread)."""
    import torch

    from ding.entry.pipeline import make_env_manager
    torch.set_num_threads(1)
    algo = WORKLOADS[workload]['algo']
    n = args.envs
    cfg = make_cfg(workload, args.cuda, n, 'base', frames=args.frames)
    env, policy, buffer_ = make_parts(cfg)
    rng = np.random.default_rng(0)
    out: Dict[str, Any] = dict(envs=n)
    try:
        env.reset()
        out['env_step_s'] = _timed(lambda: env.step_batch(rng.integers(0, N_ACTIONS, n)), args.split_steps) / n
        obs = env.ready_obs
        kwargs = {'eps': 0.1} if algo == 'dqn' else {}
        out['forward_s'] = _timed(lambda: policy.collect_mode.forward_batch(obs, **kwargs), args.split_steps) / n
        # collection as the pipeline does it (act, step, record, push), which also fills the buffer
        out['collect_s'] = _collect_cost(cfg, policy, env, buffer_, args.collect_calls)
        from ding.framework.context import OnlineRLContext
        from ding.framework.middleware import _common
        from ding.framework.middleware.data_fetcher import offpolicy_data_fetcher
        ctx = OnlineRLContext()
        fetch = offpolicy_data_fetcher(cfg, buffer_)

        def update() -> None:
            after = _common.run_inline(fetch, ctx)
            ctx.train_output = policy.learn_mode.forward(ctx.train_data)
            after()
            if args.cuda:
                torch.cuda.synchronize()

        out['update_s'] = _timed(update, args.split_updates)
        out['update_cpu_s'] = out['update_s'] if not args.cuda else None
        rows = buffer_.sample(min(buffer_.count(), 64)).batch
        out['ipc_batch_rows'] = len(rows)
        hop = _object_store_hop(rows)
        out['object_store_s'] = None if hop is None else hop / len(rows)
    finally:
        env.close()
    sub = make_env_manager(make_cfg(workload, False, n, 'subprocess', frames=args.frames), collect=True)
    try:
        sub.reset()
        out['subprocess_step_wall_s'] = _timed(lambda: sub.step_batch(rng.integers(0, N_ACTIONS, n)),
                                               args.split_steps) / n
    finally:
        sub.close()
    if ratio is None:  # balanced: training per env step costs what collecting one does
        ratio = out['collect_s'] / out['update_s']
    out['ratio'] = ratio
    out['learn_s'] = ratio * out['update_s']
    return {k: (round(v, 7) if isinstance(v, float) else v) for k, v in out.items()}


def _collect_cost(cfg: Any, policy: Any, env: Any, buffer_: Any, calls: int) -> float:
    """Seconds per env step of the pipeline's collection in this process (the policy acts, the
    envs step in turn, the collector records, data_pusher pushes), after a random warm-up that
    leaves the buffer two batches deep."""
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import StepCollector, data_pusher, eps_greedy_handler
    marks = []
    warmup = 2 * cfg.policy.learn.batch_size * max(1, int(cfg.policy.collect.get('unroll_len', 1) or 1))

    def _clock(ctx: Any) -> None:
        marks.append((time.perf_counter(), ctx.env_step))

    with task.start(ctx=OnlineRLContext()):
        if cfg.policy.other.get('eps'):
            task.use(eps_greedy_handler(cfg))
        task.use(StepCollector(cfg, policy.collect_mode, env, random_collect_size=warmup))
        task.use(data_pusher(cfg, buffer_))
        task.use(_clock)
        task.run(max_step=2 + calls)
    (t0, s0), (t1, s1) = marks[1], marks[-1]  # from the end of the first step that acted
    return (t1 - t0) / (s1 - s0)


def _object_store_hop(rows: Any) -> Optional[float]:
    """Seconds to ray.put a collected batch here and ray.get it in another process (median of 5);
    None where Ray is not installed (a lent GPU machine)."""
    try:
        import ray
    except ImportError:
        return None
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        @ray.remote
        def take(batch_ref: list) -> int:
            return len(ray.get(batch_ref[0]))

        ray.get(take.remote([ray.put(rows)]))
        times = []
        for _ in range(5):
            t = time.perf_counter()
            ray.get(take.remote([ray.put(rows)]))
            times.append(time.perf_counter() - t)
        return float(np.median(times))
    finally:
        if started:
            ray.shutdown()


def predict(s: Dict[str, Any], cores: int, collectors: int) -> Dict[str, float]:
    """Env steps/s from the split, for `cores` cores:
    - sync: collection (the subprocess manager's wall time + the forward) then training, in turn;
    - async: the two overlap: the slower side sets the pace, and the CPU work must fit the cores;
    - ray: N collectors of collect_s + the hop each, one learner of learn_s + the hop, and the
      work of all of them must fit the cores."""
    work = s['collect_s'] + s['learn_s']
    in_main = s['collect_s'] - s['env_step_s']  # acting, recording and pushing stay in the main process
    sync_collect = max(s['subprocess_step_wall_s'], s['env_step_s'] / cores) + in_main
    out = dict(sync=1 / (sync_collect + s['learn_s']), async_=min(1 / max(sync_collect, s['learn_s']), cores / work))
    hop = s['object_store_s']
    if hop is not None:
        out['ray'] = min(collectors / (s['collect_s'] + hop), 1 / (s['learn_s'] + hop), cores / (work + 2 * hop))
    return out


def predicted_modes(s: Dict[str, Any], cores: int) -> Dict[str, float]:
    """`predict` for every mode of the runs, and 16 collectors, on `cores` cores."""
    one = predict(s, cores, 1)
    rows = dict(sync=one['sync'], **{'async': one['async_']})
    if 'ray' in one:
        rows.update({f'ray{n}': predict(s, cores, n)['ray'] for n in (1, 2, 4, 16)})
    return {k: round(v, 1) for k, v in rows.items()}


def markdown(data: Dict[str, Any]) -> str:
    """One results file as tables: the split (ms per env step), then measured against predicted env steps/s."""
    where = f"{data['cores']} cores, learner on {'the GPU' if data['cuda'] else 'the CPU'}"
    lines = [f"{where}; {data['settings']['seconds']:g} s windows after {data['settings']['warmup']:g} s of warm-up; "
             f"{data['started']}." + (f" {data['note']}" if data.get('note') else ''), '']
    splits = [(name + FRAMES_LABEL[sfx], row, row['split' + sfx]) for name, row in data['workloads'].items()
              for sfx in FRAMES_LABEL if row.get('split' + sfx)]
    if splits:  # a sitting of runs only (an A/B of one option) has none
        lines += ['| workload | updates per env step | env step | acting forward | learner (ratio x update) | update '
                  '| object-store hop |', '|---|---|---|---|---|---|---|']
        for name, row, s in splits:
            ms = lambda v: '-' if v is None else f'{v * 1e3:.3f}'  # noqa: E731
            lines.append(f"| {name} | {row['ratio']:.4g} | {ms(s['env_step_s'])} | {ms(s['forward_s'])} | "
                         f"{ms(s['learn_s'])} | {s['update_s'] * 1e3:.1f} | {ms(s['object_store_s'])} |")
        lines += ['', 'ms per env step (update: ms per update), each role measured alone with one torch thread.', '']
    lines += ['| workload | mode | env steps/s | predicted | vs sync | updates per env step |',
              '|---|---|---|---|---|---|']
    for name, row in data['workloads'].items():
        runs = row.get('runs', {})
        for mode, run in runs.items():
            sfx = '_uint8' if mode.endswith('_uint8') else ''  # uint8 rows are read against uint8 sync
            sync = runs.get('sync' + sfx, {}).get('env_steps_per_s')
            pred = row.get('predicted' + sfx, {}).get(f"{data['cores']}_cores", {}).get(mode[:len(mode) - len(sfx)])
            ratio = f"{run['env_steps_per_s'] / sync:.2f}x" if sync else '-'
            lines.append(f"| {name} | {mode} | {run['env_steps_per_s']:,.0f} | "
                         f"{'-' if pred is None else f'{pred:,.0f}'} | {ratio} | {run['updates_per_env_step']:.4g} |")
    more = [(name + label, c, row['predicted' + sfx][f'{c}_cores']) for name, row in data['workloads'].items()
            for sfx, label in FRAMES_LABEL.items()
            for c in (8, 32) if c != data['cores'] and f'{c}_cores' in row.get('predicted' + sfx, {})]
    if more:
        modes = list(dict.fromkeys(m for _, _, p in more for m in p))
        lines += ['', 'What the same split predicts on more cores (env steps/s):', '',
                  '| workload | cores | ' + ' | '.join(modes) + ' |', '|---|---|' + '---|' * len(modes)]
        lines += [f"| {name} | {c} | " + ' | '.join(f'{p[m]:,.0f}' if m in p else '-' for m in modes) + ' |'
                  for name, c, p in more]
    return '\n'.join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--part', nargs='+', choices=('split', 'runs'), default=['split', 'runs'])
    p.add_argument('--workload', nargs='+', choices=tuple(WORKLOADS), default=['dqn_balanced', 'impala'])
    p.add_argument('--modes', nargs='+', choices=MODES, default=list(MODES))
    p.add_argument('--balanced-ratio', type=float, default=None, help='updates per env step for dqn_balanced')
    p.add_argument('--envs', type=int, default=8, help='envs of the one-process runs and the split')
    p.add_argument('--manager', default='subprocess', choices=('subprocess', 'alternating', 'worker_inference'),
                   help="env manager of the one-process runs ('alternating': one half of the envs steps while "
                        "the policy acts on the other; 'worker_inference': each worker acts on its own envs "
                        "with a copy of the model, DQN only)")
    p.add_argument('--ray-envs', type=int, default=4, help='envs of each Ray collector (stepped in its process)')
    p.add_argument('--seconds', type=float, default=40.0)
    p.add_argument('--warmup', type=float, default=15.0)
    p.add_argument('--split-steps', type=int, default=200)
    p.add_argument('--split-updates', type=int, default=30)
    p.add_argument('--collect-calls', type=int, default=6, help='collector calls timed in the split')
    p.add_argument('--switch-interval', type=float, default=None,
                   help="sys.setswitchinterval for the one-process runs (Python's default: 0.005 s); their rows "
                        "are <mode>_si<value>")
    p.add_argument('--max-lag', type=int, default=1,
                   help="async runs: steps collection may run ahead of training (task.start's max_lag); rows "
                        "<mode>_lag<n> when not 1")
    p.add_argument('--frames', default='float', choices=('float', 'uint8'),
                   help="observations as DI-engine's float32 in [0, 1], or uint8 end to end (AtariEnv's "
                        "scale=False); uint8 rows are <mode>_uint8 and split_uint8")
    p.add_argument('--cuda', action='store_true', help='learner (and split) on the GPU')
    p.add_argument('--note', default=None, help='what changed since the last sitting, for the tables')
    p.add_argument('--host', default=f'a {os.cpu_count()}-core machine', help='where it ran, for the tables')
    p.add_argument('--out', default=os.path.join(ROOT, 'benchmarks', 'results', 'atari_split.json'))
    args = p.parse_args()

    from ding.utils.fileio import atomic_write_json
    cores = len(os.sched_getaffinity(0))
    report: Dict[str, Any] = dict(
        started=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), cores=cores, cuda=args.cuda, host=args.host, note=args.note,
        machine=dict(python=platform.python_version(), processor=platform.processor() or platform.machine()),
        settings=dict(envs=args.envs, ray_envs=args.ray_envs, seconds=args.seconds, warmup=args.warmup),
        workloads={})
    if os.path.exists(args.out):  # parts run in separate sittings add up in one file
        with open(args.out) as f:
            old = json.load(f)
        if old.get('cores') == cores and old.get('cuda') == args.cuda:
            report['workloads'] = old.get('workloads', {})
            report['note'] = args.note or old.get('note')  # a later sitting (an A/B) adds to the first's
            report['started'] = old.get('started', report['started'])
    for workload in args.workload:
        row = report['workloads'].setdefault(workload, {})
        ratio = WORKLOADS[workload]['ratio'] or args.balanced_ratio or row.get('ratio')
        suffix = '_uint8' if args.frames == 'uint8' else ''
        if 'split' in args.part:
            row['split' + suffix] = split(workload, ratio, args)
            print(workload, 'split' + suffix, json.dumps(row['split' + suffix]), flush=True)
        ratio = ratio or row.get('split', row.get('split_uint8', {})).get('ratio')
        row['ratio'] = ratio
        if 'runs' in args.part:
            runs = row.setdefault('runs', {})
            for mode in args.modes:
                key = mode + suffix
                if mode.startswith('ray'):
                    import ray
                    ray.init(num_cpus=max(cores, 1 + int(mode[3:])), include_dashboard=False, namespace='ding',
                             log_to_driver=False)
                    try:
                        runs[key] = on_ray(workload, ratio, int(mode[3:]), args)
                    finally:
                        ray.shutdown()
                else:
                    key = mode if args.manager == 'subprocess' else f'{mode}_{args.manager}'
                    key += suffix
                    if args.switch_interval is not None:
                        key += f'_si{args.switch_interval:g}'
                    if args.max_lag != 1:
                        key += f'_lag{args.max_lag}'
                    runs[key] = one_process(workload, ratio, mode, args)
                print(workload, key, json.dumps(runs[key]), flush=True)
                atomic_write_json(args.out, report)
        for sfx in FRAMES_LABEL:
            if 'split' + sfx in row:
                row['predicted' + sfx] = {f'{c}_cores': predicted_modes(row['split' + sfx], c)
                                          for c in sorted({cores, 2, 8, 32})}
        atomic_write_json(args.out, report)
    print(json.dumps(report, indent=1))


if __name__ == '__main__':
    main()
