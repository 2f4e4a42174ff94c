"""One `ding tune` trial: sample the params, run the `ding train` pipeline per seed in the
trial's own directory, report each evaluation to optuna (which may prune), score the result.

    STUDY_DIR/trials/trial_NNNN/trial.json   params, state (RUNNING, COMPLETE, PRUNED, FAIL), per-seed
                                              evaluations, time to threshold, score
    STUDY_DIR/trials/trial_NNNN/seedS/       the run directory of seed S (as `ding train` makes)
"""
import os
from dataclasses import asdict
from typing import Any, List, Optional

from ding.entry.catalog import TunedConfig
from ding.entry.tune_space import sample, to_overrides
from ding.utils.dicts import deep_merge
from ding.utils.fileio import atomic_write_json

PRUNE_GRID = 50  # reports per budget: the steps at which trials are compared


class TrialReporter:
    """A middleware run after the evaluator: records each new evaluation, reports it to the
    optuna trial and, when the pruner says so, ends the pipeline at this step's end."""

    def __init__(self, trial: Any, budget: int, threshold: float, sign: float, report: bool) -> None:
        self.trial, self.grid, self.threshold, self.sign, self.report = trial, max(1, budget // PRUNE_GRID), \
            threshold, sign, report
        self.evals: List[List[float]] = []  # [env_step, return]
        self.reached_at: Optional[int] = None
        self.pruned_at: Optional[int] = None
        self._seen_iter, self._reported = None, set()

    def __call__(self, ctx: Any) -> None:
        if ctx.last_eval_iter != ctx.train_iter or ctx.last_eval_iter == self._seen_iter:
            return  # no evaluation this step
        self._seen_iter = ctx.train_iter
        value = float(ctx.eval_value)
        self.evals.append([int(ctx.env_step), value])
        if self.reached_at is None and value >= self.threshold and ctx.train_iter > 0:
            self.reached_at = int(ctx.env_step)
        step = int(ctx.env_step) // self.grid
        if not self.report or step in self._reported:
            return
        self._reported.add(step)
        self.trial.report(self.sign * value, step)
        if self.trial.should_prune():
            from ding.framework import task
            self.pruned_at = int(ctx.env_step)
            task.finish = True  # the rest of this step runs, then the pipeline ends cleanly


def seed_score(study: Any, reporter: TrialReporter, ctx: Any) -> float:
    if study.options.objective == 'return':
        return float(ctx.last_eval_value)
    if reporter.reached_at is not None:
        return float(reporter.reached_at)
    best = max((v for _, v in reporter.evals), default=-float('inf'))
    scale = abs(study.tuned.threshold) or 1.0
    shortfall = min(1.0, max(0.0, (study.tuned.threshold - best) / scale))
    return float(study.budget * (1.0 + shortfall))


def objective(study: Any, trial: Any) -> float:
    import optuna
    params = sample(trial, study.space)
    trial_dir = os.path.join(study.options.study_dir, 'trials', f'trial_{trial.number:04d}')
    record = {'number': trial.number, 'params': params, 'state': 'RUNNING', 'pid': os.getpid(), 'seeds': {}}
    atomic_write_json(os.path.join(trial_dir, 'trial.json'), record)
    overrides = to_overrides(params, study.tuned.overrides)
    if study.options.objective == 'time':  # stop at the threshold: later steps cannot change the score
        overrides = deep_merge(overrides, {'env': {'stop_value': study.tuned.threshold}})
    main, create = TunedConfig(**{**asdict(study.tuned), 'overrides': overrides}).load()
    info = {'algo': study.tuned.algo, 'env': study.tuned.env, 'source': study.tuned.path,
            'threshold': study.tuned.threshold, 'budget_env_steps': study.budget, 'tune_trial': trial.number}
    try:
        value = run_seeds(study, trial, main, create, info, record)
    except BaseException as err:  # pruned, or failed (an error, Ctrl-C): the trial dir says which
        record['state'] = 'PRUNED' if isinstance(err, optuna.TrialPruned) else 'FAIL'
        atomic_write_json(os.path.join(trial_dir, 'trial.json'), record)
        raise
    record.update(state='COMPLETE', value=value)
    atomic_write_json(os.path.join(trial_dir, 'trial.json'), record)
    return value


def run_seeds(study: Any, trial: Any, main: Any, create: Any, info: dict, record: dict) -> float:
    """The mean score over the seeds; raises optuna.TrialPruned when the pruner ends seed 0."""
    import optuna
    from ding.entry.pipeline import RunOptions
    from ding.entry.train import start_run
    trial_dir = os.path.join(study.options.study_dir, 'trials', f'trial_{trial.number:04d}')
    sign = -1.0 if study.options.objective == 'time' else 1.0
    scores = []
    for seed in range(study.options.seeds):
        reporter = TrialReporter(trial, study.budget, study.tuned.threshold, sign, report=seed == 0)
        options = RunOptions(max_env_step=study.budget, checkpoint_freq=10 * study.budget, progress=False,
                             after_eval=(reporter,))  # checkpoint_freq past the budget: no resume states
        _, ctx = start_run(main, create, info, seed, options, exp_name=os.path.join(trial_dir, f'seed{seed}'))
        record['seeds'][seed] = {'evals': reporter.evals, 'reached_at': reporter.reached_at,
                                 'env_step': int(ctx.env_step), 'pruned_at': reporter.pruned_at}
        if reporter.pruned_at is not None:
            raise optuna.TrialPruned(f'pruned at env_step {reporter.pruned_at}')
        scores.append(seed_score(study, reporter, ctx))
    record['seed_scores'] = scores
    return sum(scores) / len(scores)
