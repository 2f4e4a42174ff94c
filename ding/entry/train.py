"""`ding train`: start a run from a tuned config (or a config file), with overrides.

    ding train --algo dqn --env CartPole-v1 [--config JSON] [-f TUNED.yaml|CONFIG.py]
               [--seed N] [--max-env-step N] [--checkpoint-freq N] [--keep-checkpoints N] [--exp-name NAME]
               [--collectors N [--learners M] [--address HOST:PORT] ...]   (on Ray)

The run directory records in `run.json` the user-level config and the bounds, which is all
`ding resume` needs to rebuild the same pipeline.
"""
import argparse
import contextlib
import os
import shutil
import signal
from typing import Any, Dict, Iterator, Optional, Tuple

from easydict import EasyDict

from ding.entry.arguments import (UsageError, non_negative_float, non_negative_int, parse_overrides, positive_int,
                                  seed_value)
from ding.entry.catalog import TunedConfig, find_tuned, read_tuned
from ding.entry.pipeline import IMITATION_POLICIES, RunOptions, build_parts, run_training
from ding.utils.dicts import deep_merge
from ding.utils.run_dir import RunDir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--algo', help='algorithm, e.g. dqn, ppo, sac, td3 (see `ding list`)')
    parser.add_argument('--env', help='env id, e.g. CartPole-v1, Pendulum-v1 (see `ding list`)')
    parser.add_argument('-f', '--file', help='a tuned config (ding/config/tuned/*.yaml) or a config .py file '
                        '(main_config, create_config); an offline policy\'s config trains on its dataset, or on '
                        '--dataset')
    parser.add_argument('--config', default=None, help='JSON object of config overrides, e.g. \'{"policy": '
                        '{"learn": {"learning_rate": 0.0005}}}\'')
    parser.add_argument('--seed', type=seed_value, default=0)
    parser.add_argument('--max-env-step', type=positive_int, default=None,
                        help='env-step budget (default: the tuned one)')
    parser.add_argument('--dataset', default=None, help='a dataset file: train offline on it '
                        '(ding.entry.train_offline); for an imitation algorithm (sqil, sqil_sac), the expert '
                        'demonstrations it learns from online')
    parser.add_argument('--max-train-iter', type=positive_int, default=None,
                        help='offline runs: update budget (default: the tuned pair\'s, else the config\'s train_epoch '
                        'epochs)')
    parser.add_argument('--checkpoint-freq', type=positive_int, default=10000,
                        help='env steps between resume checkpoints')
    parser.add_argument('--keep-checkpoints', type=positive_int, default=None,
                        help='keep only the newest N iteration_*.pth.tar checkpoints (default: all; eval.pth.tar '
                        'and final.pth.tar are always kept)')
    parser.add_argument('--exp-name', default=None, help='run directory (default: <algo>_<env>_seed<N>)')
    parser.add_argument('--no-progress', action='store_true', 
                        help='no live progress line (progress.csv and result.json are still written)')
    parser.add_argument('--async', dest='async_mode', action='store_true',
                        help='overlap collection with training (async_mode); with envs in this process and a CPU '
                        'learner, where overlap cannot pay, steps run one after another as in sync mode (envs in '
                        'subprocess workers or a GPU learner overlap); a resumed async run is not identical to an '
                        'uninterrupted one')
    parser.add_argument('--max-lag', type=non_negative_int, default=None,
                        help='with --async: steps collection may run ahead of training (default 1). A learner that '
                        'trains on every k-th step (IMPALA) overlaps a whole update only with k or more; the '
                        'collector then acts on weights up to that many steps older')
    dist = parser.add_argument_group('distributed (on Ray; also the config section `distributed:`)')
    dist.add_argument('--collectors', type=positive_int, default=None,
                      help='collector actors: the run goes distributed (ding.entry.distributed_train)')
    dist.add_argument('--learners', type=positive_int, default=None,
                      help='learner actors (default 1); more than 1 train one model data-parallel')
    dist.add_argument('--address', default=None, help='Ray cluster to join, HOST:PORT or auto (default: a local '
                      'cluster for this run)')
    dist.add_argument('--cpus-per-collector', type=non_negative_float, default=None,
                      help='CPUs Ray reserves per collector (fractions allowed; default 0: cores shared)')
    dist.add_argument('--gpus-per-learner', type=non_negative_float, default=None,
                      help='GPUs Ray reserves per learner (fractions allowed; default 0)')
    dist.add_argument('--torch-threads', type=positive_int, default=None, help='torch threads per actor (default 1)')
    dist.add_argument('--pin-cpus', action='store_true', help='pin each actor to one core')


def resolve_config(algo: Optional[str], env: Optional[str], path: Optional[str]) -> Tuple[EasyDict, EasyDict, Dict]:
    """(main_config, create_config, info) from `-f` or from (algo, env) in the tuned table."""
    if path:
        path = _tuned_name_to_path(path)
        if _is_tuned_file(path):
            tuned = read_tuned(path)
        else:
            from ding.config import read_config
            main, create = read_config(path)
            if not create:  # compile_config could not tell which classes to build
                raise UsageError(f'{path} has no create_config (the policy and env types): give a tuned config '
                                 '(with base_config:) or a file defining main_config and create_config')
            return main, create, {'algo': create.get('policy', {}).get('type', algo), 'env': env, 'source': path}
    else:
        if not algo or not env:
            raise UsageError('give --algo and --env (see `ding list`), or -f CONFIG')
        tuned = find_tuned(algo, env)
    if tuned.offline:
        raise UsageError(offline_hint(tuned))
    main, create = tuned.load()
    return main, create, {'algo': tuned.algo, 'env': tuned.env, 'source': tuned.path, 'threshold': tuned.threshold,
                          'budget_env_steps': tuned.budget_env_steps}


def offline_hint(tuned: TunedConfig) -> str:
    """How to run an offline pair: its dataset comes from a run of the expert pair."""
    return (f'{tuned.algo} on {tuned.env} trains offline: give --dataset PATH. Its tuned dataset: '
            f'{recipe_commands(tuned.dataset, "data.hdf5")}')


def recipe_commands(recipe: Dict[str, Any], out: str) -> str:
    """The two commands that make a tuned pair's data: a run of the expert pair, then `ding collect`."""
    return (f'`ding train -f {recipe["expert"]} --exp-name expert`, then `ding collect expert --episodes '
            f'{recipe["episodes"]} --eps {recipe["eps"]} --out {out}`')


def with_demonstrations(main: EasyDict, info: Dict[str, Any], dataset: Optional[str], algo: Optional[str],
                        env: Optional[str]) -> Dict[str, Any]:
    """An imitation run (SQIL) reads its demonstrations from `dataset`; `run.json` records the
    file's fingerprint (`info`), so that `ding resume` refuses one that is gone or changed."""
    from ding.data.dataset_fingerprint import dataset_fingerprint
    if not dataset:
        recipe = find_tuned(algo, env).demonstrations if algo and env else None
        how = (f' Its tuned demonstrations: {recipe_commands(recipe, "demos.hdf5")}' if recipe else
               ' Make them with `ding collect EXPERT_RUN --out demos.hdf5` from a run of an expert')
        raise UsageError(f'{info.get("algo") or "this algorithm"} imitates an expert: give --dataset PATH, a file '
                         f'of demonstrations.{how}')
    if not os.path.exists(dataset):
        raise FileNotFoundError(f'--dataset {dataset}: no such file or directory')
    main.policy.setdefault('collect', {})['data_path'] = os.path.abspath(dataset)
    return {**info, 'demonstrations': dataset_fingerprint(os.path.abspath(dataset))}


def _tuned_name_to_path(path: str) -> str:
    """A file name from `ding list` (e.g. `dqn_cartpole-v1.yaml`) that is not a path here
    names the shipped tuned config."""
    if os.path.exists(path) or os.sep in path:
        return path
    from ding.entry.catalog import CONFIG_DIR
    shipped = os.path.join(CONFIG_DIR, path if path.endswith(('.yaml', '.yml')) else path + '.yaml')
    return shipped if os.path.isfile(shipped) else path


def _is_tuned_file(path: str) -> bool:
    if not path.endswith(('.yaml', '.yml')) or not os.path.isfile(path):
        return False
    with open(path) as f:
        return 'base_config:' in f.read()


def start_run(main: EasyDict, create: EasyDict, info: Dict[str, Any], seed: int, options: RunOptions,
              exp_name: Optional[str] = None, plan: Any = None) -> Any:
    """Compile, record run.json, build and run (on Ray with an active `plan`). Returns (cfg, ctx)."""
    from ding.config import compile_config
    from ding.config.io import to_plain
    env_slug = str(info.get('env') or 'env').lower().replace('/', '_')
    main = EasyDict(deep_merge(main, {}))
    main.exp_name = exp_name or f'{info.get("algo") or "run"}_{env_slug}_seed{seed}'
    cfg = compile_config(main, create_cfg=create, auto=True, seed=seed)
    main.exp_name = cfg.exp_name
    with removed_on_failure(cfg.exp_name):
        RunDir(cfg.exp_name).write_meta({
            **info, 'seed': seed, 'max_env_step': options.max_env_step, 'checkpoint_freq': options.checkpoint_freq,
            'progress': options.progress, 'async_mode': options.async_mode, 'max_lag': options.max_lag,
            'keep_checkpoints': options.keep_checkpoints,
            'exp_name': cfg.exp_name,
            'main_config': to_plain(main), 'create_config': to_plain(create),
            **({'distributed': plan.to_dict()} if plan else {})})
        parts = build_parts(cfg)  # model config errors, missing env packages: before any step
    print(f'run directory: {os.path.abspath(cfg.exp_name)}', flush=True)
    if plan is not None:
        parts.close()  # checked here; the nodes build their own
        from ding.entry.distributed_train import final_counters, launch_training
        with removed_on_failure(cfg.exp_name, only=UsageError), removed_if_stopped_before_a_checkpoint(cfg.exp_name):
            results = launch_training(cfg, main, create, seed, options, plan)  # UsageError: the cluster is too small
        return cfg, final_counters(results, plan)
    try:
        with removed_if_stopped_before_a_checkpoint(cfg.exp_name):
            ctx = run_training(cfg, parts, options)
    finally:
        parts.close()
    return cfg, ctx


@contextlib.contextmanager
def removed_on_failure(run_dir: str, only: type = BaseException) -> Iterator[None]:
    """A run whose setup fails (with `only`) leaves no directory behind (compile_config made
    it new for this run, so nothing else is in it)."""
    try:
        yield
    except only:
        shutil.rmtree(run_dir, ignore_errors=True)
        raise


@contextlib.contextmanager
def removed_if_stopped_before_a_checkpoint(run_dir: str) -> Iterator[None]:
    """A run stopped by a signal before its first run-state checkpoint is complete (a second
    Ctrl-C while the first one is written, SIGTERM on a distributed run's driver before its
    nodes wrote one) has nothing to resume: it leaves no directory that `ding resume` would
    refuse, and says so. The checkpoint is written atomically, so "complete" is "the file
    exists". A run that failed (an error, not a signal) keeps its directory: its log says why."""
    from ding.entry.interrupt import RunInterrupted
    try:
        yield
    except (KeyboardInterrupt, RunInterrupted) as stop:
        rd = RunDir(run_dir)
        if os.path.isfile(rd.run_state) or os.path.isfile(rd.run_state_prev):
            raise
        shutil.rmtree(run_dir, ignore_errors=True)
        signum = getattr(stop, 'signum', None) or signal.SIGINT
        raise RunInterrupted(signum, run_dir, None, f'interrupted ({signal.Signals(signum).name}) before the run\'s '
                                                    f'first checkpoint: nothing to resume, {run_dir} removed; start '
                                                    f'it again with ding train') from None


def summary(ctx: Any) -> str:
    last = ctx.last_eval_value
    last = 'none' if last is None else f'{last:.2f}'
    return (f'finished: env_step={ctx.env_step} train_iter={ctx.train_iter} episodes={ctx.env_episode} '
            f'last eval return={last}')


def main(args: argparse.Namespace) -> int:
    from ding.entry.train_offline import learns_from_a_dataset, main as train_offline
    dataset = getattr(args, 'dataset', None)
    if dataset and not args.file and (args.algo or '').lower() not in IMITATION_POLICIES:
        return train_offline(args)  # offline: a dataset instead of env interaction
    main_cfg, create_cfg, info = resolve_config(args.algo, args.env, args.file)
    main_cfg = EasyDict(deep_merge(main_cfg, parse_overrides(args.config)))
    if (create_cfg.get('policy') or {}).get('type') in IMITATION_POLICIES:  # online, from demonstrations
        info = with_demonstrations(main_cfg, info, dataset, args.algo, args.env)
    elif learns_from_a_dataset(create_cfg):  # -f an offline config: its dataset, or --dataset
        return train_offline(args, (main_cfg, create_cfg, info))
    elif dataset:
        raise UsageError(f"--dataset: {info.get('source')}'s policy ({create_cfg.policy.get('type')}) learns "
                         f"online; give an offline config (e.g. dizoo/d4rl/config/*), or --algo and --env")
    from ding.entry.distributed_train import SECTION, plan_from
    plan = plan_from(main_cfg.pop(SECTION, None), args)  # not a key compile_config knows
    budget = args.max_env_step if args.max_env_step is not None else info.get('budget_env_steps')
    async_mode = bool(getattr(args, 'async_mode', False))
    if async_mode and plan.active:
        raise UsageError('--async runs one process; a distributed run (--collectors, --learners or the config\'s '
                         '`distributed:` section) already overlaps collection with training')
    max_lag = getattr(args, 'max_lag', None)
    if max_lag is not None and not async_mode:
        raise UsageError('--max-lag bounds how far collection runs ahead of training in --async mode; add --async')
    options = RunOptions(max_env_step=budget, checkpoint_freq=args.checkpoint_freq, progress=not args.no_progress,
                         stop_on_signals=True, async_mode=async_mode, max_lag=1 if max_lag is None else max_lag,
                         keep_checkpoints=getattr(args, 'keep_checkpoints', None))
    cfg, ctx = start_run(main_cfg, create_cfg, info, args.seed, options, args.exp_name,
                         plan=plan if plan.active else None)
    print(summary(ctx))
    return 0
