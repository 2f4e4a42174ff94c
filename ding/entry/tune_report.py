"""What `ding tune` leaves in the study directory:

    best.yaml    the tuned YAML with the best trial's params merged into `overrides`
                 (`ding train -f best.yaml` runs it)
    trials.csv   one row per trial: number, state, value, duration, params
    trials.md    the same as a markdown table
    trials.png   objective per trial with the best so far, and the reported evaluation curves
"""
import csv
import io
import os
from itertools import accumulate
from typing import Any, List, Optional

import yaml

from ding.entry.tune_space import to_overrides
from ding.utils.fileio import atomic_write_text


def best_trial(optuna_study: Any) -> Optional[Any]:
    from optuna.trial import TrialState
    done = optuna_study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    return optuna_study.best_trial if done else None


def write_reports(optuna_study: Any, study: Any) -> None:
    trials = optuna_study.get_trials(deepcopy=False)
    params = sorted({k for t in trials for k in t.params})
    rows = [_row(t, params) for t in trials]
    out = study.options.study_dir
    atomic_write_text(os.path.join(out, 'trials.csv'), _csv(rows))
    atomic_write_text(os.path.join(out, 'trials.md'), _markdown(rows))
    best = best_trial(optuna_study)
    if best is not None:
        atomic_write_text(os.path.join(out, 'best.yaml'), best_yaml(study, best, len(trials)))
    if trials:
        write_plot(trials, study, os.path.join(out, 'trials.png'))


def _row(trial: Any, params: List[str]) -> dict:
    duration = trial.duration.total_seconds() if trial.duration is not None else None
    row = {'number': trial.number, 'state': trial.state.name,
           # optuna keeps a pruned trial's last report as its value: not a score, so left out
           'value': _fmt(trial.value) if trial.state.name == 'COMPLETE' else '',
           'duration_s': '' if duration is None else f'{duration:.1f}'}
    row.update({p: _fmt(trial.params[p]) if p in trial.params else '' for p in params})
    return row


def _fmt(value: Any) -> str:
    return f'{value:.6g}' if isinstance(value, float) else str(value)


def _csv(rows: List[dict]) -> str:
    text = io.StringIO()
    if rows:
        writer = csv.DictWriter(text, fieldnames=list(rows[0]), lineterminator='\n')
        writer.writeheader()
        writer.writerows(rows)
    return text.getvalue()


def _markdown(rows: List[dict]) -> str:
    if not rows:
        return 'no trials yet\n'
    columns = list(rows[0])
    lines = ['| ' + ' | '.join(columns) + ' |', '|' + '---|' * len(columns)]
    lines += ['| ' + ' | '.join(str(r[c]) for c in columns) + ' |' for r in rows]
    return '\n'.join(lines) + '\n'


def best_yaml(study: Any, best: Any, n_trials: int) -> str:
    tuned = study.tuned
    what = 'env steps to threshold' if study.options.objective == 'time' else 'final eval return'
    header = (f'# {tuned.algo} on {tuned.env}: best of {n_trials} `ding tune` trials (trial {best.number}, '
              f'{what} {best.value:.6g}, study {study.options.study_name}).\n')
    data = {'algo': tuned.algo, 'env': tuned.env, 'threshold': tuned.threshold,
            'budget_env_steps': tuned.budget_env_steps, 'base_config': tuned.base_config,
            'overrides': _plain(to_overrides(best.params, tuned.overrides)),
            'search_space': _plain(study.space)}
    return header + yaml.safe_dump(data, sort_keys=False)


def _plain(value: Any) -> Any:
    """EasyDicts and numpy scalars as YAML's plain types."""
    if isinstance(value, dict):  # unset fields (`step: None`) left out: the YAML reads as written
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, 'item') and not isinstance(value, (str, bytes)):
        return value.item()
    return value


def write_plot(trials: List[Any], study: Any, path: str) -> None:
    import matplotlib.pyplot as plt
    fig = trials_figure(trials, study)
    buf = io.BytesIO()
    fig.savefig(buf, format='png', dpi=80)
    plt.close(fig)
    from ding.utils.fileio import atomic_write_bytes
    atomic_write_bytes(path, buf.getvalue())


def trials_figure(trials: List[Any], study: Any) -> Any:
    """Left: each complete trial's objective and the best so far; pruned trials (no score) as
    marks on the worst edge. Right: the reported evaluation curves."""
    import matplotlib
    matplotlib.use('Agg')  # files only: no display needed
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401  (MaxNLocator)
    from optuna.trial import TrialState
    minimise = study.options.objective == 'time'
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    done = [t for t in trials if t.state == TrialState.COMPLETE]
    left.scatter([t.number for t in done], [t.value for t in done], label='complete')
    best_so_far = list(accumulate((t.value for t in done), min if minimise else max))
    left.step([t.number for t in done], best_so_far, where='post', color='C1', label='best so far')
    pruned = [t for t in trials if t.state == TrialState.PRUNED]
    if pruned:
        # A pruned trial has no score. At a made-up value (it was 0) it could read as the best: fewer
        # env steps than any, or a higher return than negative ones. Drawn on the worst edge of the
        # axes instead (top when minimising, bottom when maximising), whatever the scores' range.
        worst_edge = 0.97 if minimise else 0.03
        left.scatter([t.number for t in pruned], [worst_edge] * len(pruned), marker='x', color='C3',
                     transform=left.get_xaxis_transform(), label='pruned (no score)')
    left.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    left.set_xlabel('trial')
    left.set_ylabel('env steps to threshold (lower is better)' if minimise else 'final eval return')
    left.legend()
    sign = -1.0 if minimise else 1.0
    from ding.entry.tune_trial import PRUNE_GRID
    grid = max(1, study.budget // PRUNE_GRID)
    for t in trials:
        steps = sorted(t.intermediate_values)
        if steps:
            right.plot([s * grid for s in steps], [sign * t.intermediate_values[s] for s in steps],
                       linestyle='--' if t.state == TrialState.PRUNED else '-', alpha=0.7)
    right.axhline(study.tuned.threshold, color='grey', linewidth=0.8)
    right.set_xlabel('env step (first seed)')
    right.set_ylabel('eval return (dashed: pruned)')
    fig.suptitle(f'ding tune: {study.options.study_name}')
    fig.tight_layout()
    return fig
