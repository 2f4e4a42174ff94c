"""`ding plot` grouping and combination, and the progress reporter's text and files."""
import io
import json

import numpy as np
import pytest

from ding.entry.cli import main
from ding.entry.plot import combine, group_name
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import _common
from ding.framework.middleware.progress import (format_status, progress_reporter, read_rows, rows_before_checkpoint,
                                                rows_to_csv)


def write_run(root, name, points):
    run = root / name
    run.mkdir()
    rows = [{'env_step': s, 'train_iter': s // 2, 'eval_return_mean': r} for s, r in points]
    (run / 'result.json').write_text(''.join(json.dumps(r) + '\n' for r in rows))
    return str(run)


def test_group_name_drops_the_seed():
    assert group_name('runs/dqn_cartpole-v1_seed2/') == 'dqn_cartpole-v1'
    assert group_name('ppo-seed10') == 'ppo'
    assert group_name('plain') == 'plain'


def test_combine_takes_mean_and_band_over_seeds_as_step_functions():
    a = (np.array([0., 100., 200.]), np.array([10., 20., 30.]))
    b = (np.array([0., 150., 250.]), np.array([0., 40., 50.]))
    steps, mean, low, high = combine([a, b])
    assert steps.tolist() == [0., 100., 150., 200.]  # up to the last step both reached
    assert mean.tolist() == [5., 10., 30., 35.]
    assert low.tolist() == [0., 0., 20., 30.] and high.tolist() == [10., 20., 40., 40.]


def test_plot_writes_one_curve_per_group(tmp_path, capsys):
    pytest.importorskip('matplotlib')
    runs = [write_run(tmp_path, 'dqn_seed0', [(0, 10), (1000, 100)]),
            write_run(tmp_path, 'dqn_seed1', [(0, 20), (1000, 200)]),
            write_run(tmp_path, 'ppo_seed0', [(0, 5), (500, 50), (1000, 300)])]
    out = tmp_path / 'curve.png'
    assert main(['plot', *runs, '-o', str(out)]) == 0
    assert capsys.readouterr().out.strip() == f'wrote {out}: dqn (2 runs), ppo (1 run)'
    from PIL import Image
    assert Image.open(out).size == (700, 450)


def test_format_status_with_and_without_a_bound():
    assert format_status(12000, 2400.0, 6000, 187.3, 100000) == \
        'env_step 12,000/100,000 | 2,400 steps/s | train_iter 6,000 | eval 187.30 | ETA 0:00:37'  # 36.7 s, rounded up
    assert format_status(5, 0.0, 0, None, None) == 'env_step 5 | 0 steps/s | train_iter 0 | eval -'


def test_rows_to_csv_keeps_fixed_columns_first_and_adds_new_ones():
    text = rows_to_csv([{'env_step': 1, 'train_iter': 0}, {'env_step': 2, 'train_iter': 1, 'train_loss': 0.5}])
    assert text.splitlines() == [
        'env_step,train_iter,env_episode,eval_return_mean,eval_return_std,eval_episodes,time_s,env_steps_per_s,'
        'train_loss', '1,0,,,,,,,', '2,1,,,,,,,0.5']


class _Task:
    finish = False


def _step(reporter, ctx, env_step, evaluated=None):
    gen = reporter(ctx)
    next(gen)
    ctx.env_step, ctx.train_iter = env_step, env_step // 2
    if evaluated is not None:
        ctx.eval_value, ctx.eval_output = float(np.mean(evaluated)), {'episode_return': evaluated}
    with pytest.raises(StopIteration):
        next(gen)


def test_a_resumed_run_keeps_only_the_rows_its_checkpoint_had_seen():
    # a distributed evaluator's rows: its lagging count of the collectors' steps, the learner's train_iter
    rows = [{'env_step': 100, 'train_iter': 40}, {'env_step': 200, 'train_iter': 90},
            {'env_step': 208, 'train_iter': 95}, {'env_step': 208, 'train_iter': 110},
            {'env_step': 260, 'train_iter': 130}]
    kept = lambda env_step, train_iter: [(r['env_step'], r['train_iter'])  # noqa: E731
                                         for r in rows_before_checkpoint(rows, env_step, train_iter)]
    # checkpoint at (208, 100): the rows at 208 are of other train_iters; the resumed run writes 208 again
    assert kept(208, 100) == [(100, 40), (200, 90)]
    assert kept(208, 95) == [(100, 40), (200, 90), (208, 95)]
    # a row of an earlier env_step but a later train_iter was written after the checkpoint
    assert kept(210, 80) == [(100, 40)]

def test_reporter_rows_and_resume_truncation(tmp_path, monkeypatch):
    monkeypatch.setattr(_common, 'current_task', lambda: _Task)
    stream = io.StringIO()
    reporter = progress_reporter(str(tmp_path), max_env_step=100, stream=stream)
    ctx = OnlineRLContext()
    _step(reporter, ctx, 10, evaluated=[1.0, 3.0])
    ctx = ctx.renew()
    _step(reporter, ctx, 20)
    ctx = ctx.renew()
    _step(reporter, ctx, 30, evaluated=[5.0, 5.0])
    rows = read_rows(str(tmp_path / 'result.json'))
    assert [(r['env_step'], r['eval_return_mean'], r['eval_return_std'], r['eval_episodes']) for r in rows] == \
        [(10, 2.0, 1.0, 2), (30, 5.0, 0.0, 2)]
    assert stream.getvalue().splitlines()[0].startswith('env_step 10/100 | ')  # not a TTY: plain lines
    assert len((tmp_path / 'progress.csv').read_text().splitlines()) == 3

    # A resumed run that restored the counters of env_step 20 forgets the row written after it.
    resumed = progress_reporter(str(tmp_path), max_env_step=100, stream=io.StringIO(), show=False)
    ctx = OnlineRLContext()
    ctx.env_step, ctx.train_iter = 20, 10
    _step(resumed, ctx, 40, evaluated=[7.0])
    assert [(r['env_step'], r['eval_return_mean']) for r in read_rows(str(tmp_path / 'result.json'))] == \
        [(10, 2.0), (40, 7.0)]
