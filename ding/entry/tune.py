"""`ding tune`: hyperparameter search on Optuna, one `ding train` pipeline per trial.

    ding tune --algo dqn --env CartPole-v1 --trials N [--parallel K] [--storage sqlite:///study.db]
              [--study-name NAME] [--study-dir DIR] [--max-env-step N] [--seeds S]
              [--objective time|return] [--pruner median|none] [-f TUNED.yaml]

- The search space is the tuned YAML's `search_space:` or the algorithm's default
  (ding/entry/tune_space.py).
- Objective `time` (default, minimised): env steps to the first evaluation at the tuned
  threshold; a trial that never gets there scores its budget plus a penalty that grows with how
  far its best evaluation stayed below the threshold (up to another budget). Objective `return`
  (maximised): the final evaluation return. Both are averaged over `--seeds` seeds.
- Each evaluation of the first seed is reported to the trial (the step is the env step rounded to
  1/50 of the budget, so trials with different batch sizes still compare), and MedianPruner may
  end it: the pipeline stops at that step's end (`task.finish`) and the trial's `trial.json` says
  PRUNED. For `time` the reported value is minus the return, since the study minimises.
- `--parallel K` runs K worker processes on one storage (sqlite by default, in the study dir).
  Running the same command again resumes: trials left RUNNING (a killed process) are marked
  FAIL, and only the trials still missing (N less the COMPLETE and PRUNED ones) are run.
- The study dir gets `best.yaml` (a tuned YAML `ding train -f` accepts, with the best params in
  `overrides`), `trials.csv`, `trials.md` and `trials.png` (ding/entry/tune_report.py).
"""
import argparse
import json
import multiprocessing
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from ding.entry.arguments import UsageError, positive_int
from ding.entry.catalog import TunedConfig, find_tuned, read_tuned
from ding.entry.tune_space import check_paths, check_space_values, default_space, parse_space
from ding.utils.dicts import deep_merge
from ding.utils.fileio import atomic_write_json

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--algo', help='algorithm with a tuned config (see `ding list`)')
    parser.add_argument('--env', help='env id, e.g. CartPole-v1')
    parser.add_argument('-f', '--file', help='a tuned YAML to start from (its `search_space:` if it has one)')
    parser.add_argument('--trials', type=positive_int, required=True, help='trials the study should hold in all')
    parser.add_argument('--parallel', type=positive_int, default=1, help='worker processes sharing the storage')
    parser.add_argument('--storage', default=None, help='optuna storage URL (default: sqlite:///STUDY_DIR/study.db)')
    parser.add_argument('--study-name', default=None, help='default: tune_<algo>_<env>')
    parser.add_argument('--study-dir', default=None, help='where trials and reports go (default: the study name)')
    parser.add_argument('--max-env-step', type=positive_int, default=None, help='budget per trial and seed '
                        '(default: the tuned budget)')
    parser.add_argument('--seeds', type=positive_int, default=1, help='seeds per trial (0..S-1), averaged')
    parser.add_argument('--objective', choices=('time', 'return'), default='time',
                        help='time: env steps to the threshold (minimised); return: final eval return (maximised)')
    parser.add_argument('--pruner', choices=('median', 'none'), default='median')


@dataclass
class TuneOptions:
    trials: int
    study_dir: str
    study_name: str
    storage: str
    parallel: int = 1
    max_env_step: Optional[int] = None
    seeds: int = 1
    objective: str = 'time'
    pruner: Any = 'median'  # 'median', 'none', or an optuna pruner object (in-process studies)
    torch_threads: int = 1


@dataclass
class Study:
    """What a worker needs to run trials: plain data, so a spawned process can take it."""
    tuned: TunedConfig
    space: Dict[str, Dict[str, Any]]
    options: TuneOptions

    @property
    def budget(self) -> int:
        return int(self.options.max_env_step or self.tuned.budget_env_steps)


def load_tuned(algo: Optional[str], env: Optional[str], path: Optional[str]) -> TunedConfig:
    if path:
        if not path.endswith(('.yaml', '.yml')):
            raise UsageError(f'ding tune -f needs a tuned YAML (ding/config/tuned/*.yaml), got {path}')
        if not os.path.isfile(path):
            raise FileNotFoundError(f'no tuned config at {path}')
        tuned = read_tuned(path)
        if tuned.offline:
            raise UsageError(f'ding tune searches online pairs (an env-step budget); {path} is an offline pair')
        return tuned
    if not algo or not env:
        raise UsageError('give --algo and --env (see `ding list`), or -f TUNED.yaml')
    return find_tuned(algo, env, offline=False)  # ChoiceError lists the valid names


def resolve_space(tuned: TunedConfig) -> Dict[str, Dict[str, Any]]:
    """The YAML's space (checked) or the algorithm's default; every path must name a config key."""
    space = parse_space(tuned.search_space if tuned.search_space is not None else default_space(tuned.algo))
    main, create = tuned.load()
    from ding.config import compile_config
    from ding.config.schema import declared
    from ding.utils.registry import POLICY_REGISTRY
    import ding.policy  # noqa: F401  (registers the policies)
    # the base config's keys and values once, so that a mistake is one error line, not a failed trial each
    compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    policy_cls = POLICY_REGISTRY.lookup(create.policy.type)
    check_paths(space, deep_merge({'policy': policy_cls.default_config()}, main))
    check_space_values(space, {'policy': declared(policy_cls)})
    return space


def make_study(study: Study) -> Any:
    import optuna
    storage = optuna.storages.RDBStorage(study.options.storage, engine_kwargs={'connect_args': {'timeout': 60}}) \
        if study.options.storage.startswith('sqlite') else study.options.storage
    direction = 'minimize' if study.options.objective == 'time' else 'maximize'
    pruner = study.options.pruner  # a name, or (in code, one process) an optuna pruner
    if pruner == 'median':  # the first report (before any training) never prunes
        pruner = optuna.pruners.MedianPruner(n_startup_trials=2, n_warmup_steps=1)
    elif pruner == 'none':
        pruner = optuna.pruners.NopPruner()
    return optuna.create_study(study_name=study.options.study_name, storage=storage, direction=direction,
                               pruner=pruner, load_if_exists=True)


def fail_stale_trials(optuna_study: Any) -> int:
    """Trials left RUNNING by a killed process: marked FAIL (one `ding tune` command per study
    at a time, so none of them is still running)."""
    from optuna.trial import TrialState
    stale = optuna_study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
    for t in stale:  # optuna has no public call for this without heartbeats (optuna 3.x to 5.x keep these names)
        optuna_study._storage.set_trial_state_values(t._trial_id, state=TrialState.FAIL)
    return len(stale)


def remaining_trials(optuna_study: Any, total: int) -> int:
    from optuna.trial import TrialState
    return max(0, total - len(optuna_study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))))


def run_worker(study: Study, n_trials: int, optuna_study: Any = None) -> None:
    import torch
    torch.set_num_threads(study.options.torch_threads)
    if n_trials > 0:
        optuna_study = optuna_study or make_study(study)  # a spawned worker opens the storage itself
        from ding.entry.tune_trial import objective
        optuna_study.optimize(lambda trial: objective(study, trial), n_trials=n_trials)


def spawned_worker(study: Study, n_trials: int) -> None:
    """A worker process that ends with its parent: after a `kill -9` of `ding tune` no orphan
    keeps running trials that the resumed study marks FAIL."""
    import threading
    import time
    parent = multiprocessing.parent_process()

    def _watch() -> None:
        while parent.is_alive():
            time.sleep(0.5)
        os._exit(1)  # its trial stays RUNNING, as the parent's own would: resume marks it FAIL

    threading.Thread(target=_watch, name='ding-tune-parent-watch', daemon=True).start()
    run_worker(study, n_trials)


def run_study(study: Study) -> Any:
    """Resume or start the study, run what is missing on `parallel` processes, write the reports."""
    claim_study_dir(study)
    optuna_study = make_study(study)
    wanted = 'MINIMIZE' if study.options.objective == 'time' else 'MAXIMIZE'
    if optuna_study.direction.name != wanted:  # optuna would silently keep the stored direction
        raise UsageError(f'study {study.options.study_name} in {study.options.storage} was created to '
                         f'{optuna_study.direction.name.lower()}; --objective {study.options.objective} needs '
                         f'{wanted.lower()} (use another --study-name)')
    failed = fail_stale_trials(optuna_study)
    if failed:
        print(f'marked {failed} trial(s) left RUNNING by a stopped run as FAIL', flush=True)
    todo = remaining_trials(optuna_study, study.options.trials)
    print(f'study {study.options.study_name}: {todo} of {study.options.trials} trials to run '
          f'({study.options.parallel} process(es)); storage {study.options.storage}', flush=True)
    shares = [todo // study.options.parallel + (i < todo % study.options.parallel)
              for i in range(study.options.parallel)]
    try:
        if study.options.parallel == 1:
            run_worker(study, todo, optuna_study)
        else:
            run_processes(study, [s for s in shares if s > 0])
    finally:
        from ding.entry.tune_report import write_reports
        write_reports(optuna_study, study)
    return optuna_study


def claim_study_dir(study: Study) -> None:
    """One study per directory: its trial folders are named by trial number alone."""
    path = os.path.join(study.options.study_dir, 'study.json')
    if os.path.isfile(path):
        with open(path) as f:
            owner = json.load(f).get('study_name')
        if owner != study.options.study_name:
            raise UsageError(f'{study.options.study_dir} holds study {owner!r}, not {study.options.study_name!r}: '
                             f'give another --study-dir or --study-name {owner}')
        return
    atomic_write_json(path, {'study_name': study.options.study_name, 'storage': study.options.storage,
                             'algo': study.tuned.algo, 'env': study.tuned.env, 'objective': study.options.objective})


def run_processes(study: Study, shares: List[int]) -> None:
    context = multiprocessing.get_context('spawn')  # no forked torch / sqlite state
    workers = [context.Process(target=spawned_worker, args=(study, n), name=f'ding-tune-{i}')
               for i, n in enumerate(shares)]
    for w in workers:
        w.start()
    try:
        for w in workers:
            w.join()
    finally:
        for w in workers:
            if w.is_alive():  # the parent was interrupted: its workers go with it
                w.terminate()
                w.join()
    bad = [w.exitcode for w in workers if w.exitcode != 0]
    if bad:
        raise RuntimeError(f'{len(bad)} tune worker process(es) failed (exit codes {bad}); see their output above')


def study_from_args(args: argparse.Namespace) -> Study:
    tuned = load_tuned(args.algo, args.env, args.file)
    space = resolve_space(tuned)
    name = args.study_name or f'tune_{tuned.algo}_{tuned.env.lower().replace("/", "_")}'
    study_dir = args.study_dir or name
    storage = args.storage or f'sqlite:///{os.path.abspath(os.path.join(study_dir, "study.db"))}'
    options = TuneOptions(trials=args.trials, study_dir=study_dir, study_name=name, storage=storage,
                          parallel=args.parallel, max_env_step=args.max_env_step, seeds=args.seeds,
                          objective=args.objective, pruner=args.pruner)
    return Study(tuned, space, options)


def main(args: argparse.Namespace) -> int:
    study = study_from_args(args)
    import optuna  # noqa: F401  (missing: `ding: error:` names the `tune` extra, before any work)
    optuna_study = run_study(study)
    from ding.entry.tune_report import best_trial
    best = best_trial(optuna_study)
    where = os.path.join(study.options.study_dir, 'best.yaml')
    print(json.dumps({'best_value': None if best is None else best.value,
                      'best_params': None if best is None else best.params, 'best_yaml': where}))
    return 0
