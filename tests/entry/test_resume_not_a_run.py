"""`ding resume` on a directory that is not a run says so in one line without listing the
directory's files; it names the run directories inside it when there are some."""
import os

from ding.entry.cli import main


def test_a_plain_directory_is_not_listed(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    os.makedirs('photos')
    for name in ('secret_plan.txt', 'b.jpg'):
        open(os.path.join('photos', name), 'w').close()
    assert main(['resume', 'photos']) == 2
    assert capsys.readouterr().err.strip() == \
        'ding: error: photos is not a run directory started by `ding train` (no run.json)'


def test_a_parent_of_runs_names_them(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for run in ('runs/dqn_seed0', 'runs/dqn_seed1'):
        os.makedirs(run)
        open(os.path.join(run, 'run.json'), 'w').close()
    assert main(['resume', 'runs']) == 2
    assert capsys.readouterr().err.strip().endswith(
        '(no run.json); run directories inside it: runs/dqn_seed0, runs/dqn_seed1')


def test_a_missing_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(['resume', 'nothere']) == 2
    assert capsys.readouterr().err.strip() == 'ding: error: nothere does not exist'
