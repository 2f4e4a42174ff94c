"""`trials.png` of `ding tune`: a pruned trial has no score, so it is never drawn where the best
trial would be (it used to sit at 0: fewer env steps than any complete trial, or a higher return
than negative ones), and the best-so-far line counts complete trials only."""
from types import SimpleNamespace

import pytest

optuna = pytest.importorskip('optuna')
pytest.importorskip('matplotlib')

from optuna.trial import TrialState, create_trial  # noqa: E402

from ding.entry.tune_report import trials_figure  # noqa: E402


def trials(values):
    """Trials numbered in order: a float is a complete trial's value, None a pruned trial."""
    made = []
    for number, value in enumerate(values):
        if value is None:
            trial = create_trial(state=TrialState.PRUNED, intermediate_values={1: -5.0})
        else:
            trial = create_trial(state=TrialState.COMPLETE, value=value, intermediate_values={1: -5.0})
        trial.number = number
        made.append(trial)
    return made


def study(objective):
    return SimpleNamespace(options=SimpleNamespace(objective=objective, study_name='s'), budget=1000,
                           tuned=SimpleNamespace(threshold=195))


def drawn_heights(fig, label):
    """Screen heights (pixels, up is larger) of the points of the left panel's `label` series."""
    left = fig.axes[0]
    fig.canvas.draw()
    for collection in left.collections:
        if collection.get_label() == label:
            return [y for _, y in collection.get_offset_transform().transform(collection.get_offsets())]
    raise AssertionError(f'no {label!r} series in {[c.get_label() for c in left.collections]}')


@pytest.mark.parametrize('objective, values, better_is_lower', [
    ('time', [3000.0, None, 5000.0, None], True),  # env steps to threshold: fewer is better; 0 beat them all
    ('return', [-900.0, None, -400.0], False),  # Pendulum-like returns: 0 was above every one
])
def test_a_pruned_trial_is_drawn_on_the_worst_side_of_every_complete_trial(objective, values, better_is_lower):
    import matplotlib.pyplot as plt
    fig = trials_figure(trials(values), study(objective))
    try:
        complete = drawn_heights(fig, 'complete')
        pruned = drawn_heights(fig, 'pruned (no score)')
        assert len(complete) == len([v for v in values if v is not None]) and len(pruned) == values.count(None)
        if better_is_lower:  # up is worse
            assert min(pruned) > max(complete)
        else:
            assert max(pruned) < min(complete)
        best_line = fig.axes[0].lines[0].get_ydata()
        assert list(best_line) == ([3000.0, 3000.0] if better_is_lower else [-900.0, -400.0])
    finally:
        plt.close(fig)
