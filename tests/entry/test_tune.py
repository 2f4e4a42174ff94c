"""`ding tune`: a study writes a best YAML `ding train -f` runs, the trial table and plot; a
stopped study resumes; pruning ends a trial's pipeline cleanly; workers share one sqlite
storage; mistakes end as `ding: error:`."""
import csv
import json
import os
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

optuna = pytest.importorskip('optuna')

from ding.entry.catalog import read_tuned  # noqa: E402
from ding.entry.cli import main  # noqa: E402
from ding.entry.tune import Study, TuneOptions, resolve_space, run_study  # noqa: E402
from ding.entry.tune_trial import TrialReporter  # noqa: E402
from ding.entry.tune_space import parse_space  # noqa: E402

SMALL_TUNED = """# DQN, small and fast, for the tests
algo: dqn
env: CartPole-v1
threshold: 475
budget_env_steps: {budget}
base_config: dizoo.classic_control.cartpole.config.cartpole_dqn_v1_config
overrides:
  env: {{n_evaluator_episode: 2, collector_env_num: 2, evaluator_env_num: 2}}
  policy:
    collect: {{n_sample: 32}}
    learn: {{update_per_collect: 4}}
    eval: {{evaluator: {{eval_freq: 8}}}}
    other: {{replay_buffer: {{replay_buffer_size: 1000}}}}
"""
SMALL_SPACE = """search_space:
  policy.learn.learning_rate: {type: float, low: 1.0e-4, high: 3.0e-3, log: true}
  policy.learn.batch_size: {type: categorical, choices: [16, 32]}
"""
TRIAL_STATES = ('COMPLETE', 'PRUNED', 'FAIL')


def small_tuned(tmp_path, budget=200, space=True):
    path = tmp_path / 'small.yaml'
    path.write_text(SMALL_TUNED.format(budget=budget) + (SMALL_SPACE if space else ''))
    return str(path)


def small_study(tmp_path, trials, pruner='none', budget=200):
    tuned = read_tuned(small_tuned(tmp_path, budget))
    study_dir = str(tmp_path / 'study')
    options = TuneOptions(trials=trials, study_dir=study_dir, study_name='t',
                          storage=f'sqlite:///{study_dir}/study.db', pruner=pruner)
    return Study(tuned, resolve_space(tuned), options)


def states(optuna_study):
    return sorted(t.state.name for t in optuna_study.get_trials())


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_study_writes_best_yaml_that_train_accepts_a_table_and_a_plot(in_tmp, capsys):
    path = small_tuned(in_tmp, space=False)  # no `search_space:`: DQN's default space
    assert main(['tune', '-f', path, '--trials', '3', '--max-env-step', '300', '--study-dir', 'study',
                 '--seeds', '1']) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    rows = list(csv.DictReader(open('study/trials.csv')))
    assert [r['state'] for r in rows] == ['COMPLETE'] * 3
    assert {'policy.learn.learning_rate', 'policy.nstep', 'value'} <= set(rows[0])
    best_row = min(rows, key=lambda r: float(r['value']))
    assert float(best_row['value']) == pytest.approx(summary['best_value'], rel=1e-5)
    table = open('study/trials.md').read().splitlines()
    assert table[0].startswith('| number | state | value |') and len(table) == 2 + 3
    assert open('study/trials.png', 'rb').read(8) == b'\x89PNG\r\n\x1a\n'
    best = read_tuned('study/best.yaml')
    assert (best.algo, best.env, best.threshold, best.budget_env_steps) == ('dqn', 'CartPole-v1', 475, 200)
    parse_space(best.search_space)  # the space it was tuned on, reusable as is
    from ding.entry.train import resolve_config  # what `ding train -f study/best.yaml` starts from
    main_cfg, create_cfg, info = resolve_config(None, None, 'study/best.yaml')
    assert main_cfg.policy.nstep == summary['best_params']['policy.nstep']
    assert main_cfg.policy.learn.learning_rate == summary['best_params']['policy.learn.learning_rate']
    assert main_cfg.policy.collect.n_sample == 32  # the tuned file's own overrides are kept
    assert (info['algo'], create_cfg.policy.type) == ('dqn', 'dqn')


def test_a_stopped_study_resumes_failing_the_trial_left_running(tmp_path, capsys):
    study = small_study(tmp_path, trials=2)
    assert states(run_study(study)) == ['COMPLETE', 'COMPLETE']
    left_running = optuna.load_study(study_name='t', storage=study.options.storage).ask()  # as a kill -9 leaves it
    study.options.trials = 3
    resumed = run_study(study)
    assert 'marked 1 trial(s) left RUNNING' in capsys.readouterr().out
    assert states(resumed) == ['COMPLETE'] * 3 + ['FAIL']
    assert resumed.get_trials()[left_running.number].state.name == 'FAIL'
    assert states(run_study(study)) == ['COMPLETE'] * 3 + ['FAIL']  # nothing left to run


class AlwaysPrune(optuna.pruners.BasePruner):
    def prune(self, study, trial):
        return True


def test_a_pruned_trial_ends_its_pipeline_cleanly_and_says_so(tmp_path):
    study = small_study(tmp_path, trials=1, pruner=AlwaysPrune(), budget=2000)
    assert states(run_study(study)) == ['PRUNED']
    trial_dir = tmp_path / 'study' / 'trials' / 'trial_0000'
    record = json.loads((trial_dir / 'trial.json').read_text())
    assert record['state'] == 'PRUNED' and record['seeds']['0']['pruned_at'] == 0
    final = json.loads((trial_dir / 'seed0' / 'final_ctx.json').read_text())  # the pipeline ran to its end
    assert final['env_step'] < 2000  # stopped at the first evaluation's step, not at the budget
    assert [r['state'] for r in csv.DictReader(open(tmp_path / 'study' / 'trials.csv'))] == ['PRUNED']
    assert not (tmp_path / 'study' / 'best.yaml').exists()  # no complete trial, no best


def test_median_pruner_stops_a_trial_whose_returns_trail(monkeypatch):
    from ding.framework import task
    study = optuna.create_study(direction='minimize', pruner=optuna.pruners.MedianPruner(n_startup_trials=2,
                                                                                          n_warmup_steps=1))

    def feed(returns):
        trial = study.ask()
        reporter = TrialReporter(trial, budget=5000, threshold=475, sign=-1.0, report=True)  # grid: 100 steps
        for i, value in enumerate(returns):
            reporter(SimpleNamespace(train_iter=i * 10, last_eval_iter=i * 10, eval_value=value, env_step=i * 1000))
            if reporter.pruned_at is not None:
                break
        return trial, reporter

    monkeypatch.setattr(task, '_finish', False)
    for _ in range(2):
        trial, reporter = feed([10, 200, 480])
        assert reporter.pruned_at is None and reporter.reached_at == 2000
        study.tell(trial, reporter.reached_at)
    assert not task.finish
    _, reporter = feed([10, 20, 30])
    assert reporter.pruned_at == 1000 and task.finish  # at the first comparable step past the warm-up


@pytest.mark.parametrize('args, message', [
    (['--algo', 'dqnn', '--env', 'CartPole-v1'], "unknown algorithm 'dqnn' (did you mean 'dqn'?)"),
    (['--algo', 'pg', '--env', 'CartPole-v1'], "no default search space for 'pg'"),
])
def test_mistakes_exit_2_with_the_cause(in_tmp, capsys, args, message):
    assert main(['tune', '--trials', '1'] + args) == 2
    assert message in capsys.readouterr().err
    assert os.listdir(in_tmp) == []


def test_a_bad_search_space_key_is_named(in_tmp, capsys):
    path = small_tuned(in_tmp)
    with open(path, 'a') as f:
        f.write('  policy.learn.learning_rte: {type: float, low: 0.001, high: 0.01}\n')
    assert main(['tune', '-f', path, '--trials', '1']) == 2
    assert "policy.learn.learning_rte: no such config key (did you mean 'policy.learn.learning_rate'?)" \
        in capsys.readouterr().err


def test_missing_optuna_names_the_extra(in_tmp, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, 'optuna', None)  # import optuna -> ImportError
    assert main(['tune', '--algo', 'dqn', '--env', 'CartPole-v1', '--trials', '1']) == 2
    assert 'ding: error: optuna is not installed; install it with: pip install "ding[tune]"' in capsys.readouterr().err
    assert os.listdir(in_tmp) == []


def _tune_command(tmp_path, *extra):
    return [sys.executable, '-m', 'ding.entry.cli', 'tune', '-f', small_tuned(tmp_path, 3000), '--study-dir',
            str(tmp_path / 'study'), '--study-name', 't', *extra]


@pytest.mark.slow
def test_parallel_workers_share_one_sqlite_storage(tmp_path):
    # no pruner: which trial the median pruner stops depends on the order the two workers report in
    run = subprocess.run(_tune_command(tmp_path, '--trials', '4', '--parallel', '2', '--max-env-step', '200',
                                       '--pruner', 'none'), capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    study = optuna.load_study(study_name='t', storage=f'sqlite:///{tmp_path}/study/study.db')
    assert states(study) == ['COMPLETE'] * 4
    pids = {json.loads(open(tmp_path / 'study' / 'trials' / f'trial_{n:04d}' / 'trial.json').read())['pid']
            for n in range(4)}
    assert len(pids) == 2  # two worker processes, two trials each


@pytest.mark.slow
@pytest.mark.parametrize('parallel', [2])  # the kill ends two worker processes too
def test_resume_after_kill_9(tmp_path, parallel):
    psutil = pytest.importorskip('psutil')
    command = _tune_command(tmp_path, '--trials', '3', '--pruner', 'none', '--parallel', str(parallel))
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    second = tmp_path / 'study' / 'trials' / 'trial_0001' / 'trial.json'
    deadline = time.monotonic() + 180
    while not second.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = psutil.Process(proc.pid).children(recursive=True)
    os.kill(proc.pid, signal.SIGKILL)  # mid-trial 1: it stays RUNNING in the storage
    proc.wait()
    _, alive = psutil.wait_procs(workers, timeout=30)
    assert not alive, 'worker processes outlived the killed parent'
    assert json.loads(second.read_text())['state'] == 'RUNNING'
    run = subprocess.run(command, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    study = optuna.load_study(study_name='t', storage=f'sqlite:///{tmp_path}/study/study.db')
    failed = [t.number for t in study.get_trials() if t.state.name == 'FAIL']
    assert f'marked {len(failed)} trial(s) left RUNNING by a stopped run as FAIL' in run.stdout
    assert 1 in failed and len(failed) <= parallel
    assert states(study) == ['COMPLETE'] * 3 + ['FAIL'] * len(failed)
    assert (tmp_path / 'study' / 'best.yaml').exists()


def test_a_study_dir_holds_one_study_and_a_study_keeps_its_direction(tmp_path):
    from ding.entry.arguments import UsageError
    study = small_study(tmp_path, trials=0)
    run_study(study)
    study.options.study_name = 'other'
    with pytest.raises(UsageError, match="holds study 't', not 'other'"):
        run_study(study)
    study.options.study_name, study.options.objective = 't', 'return'
    with pytest.raises(UsageError, match='was created to minimize; --objective return needs maximize'):
        run_study(study)


def test_a_failing_trial_is_recorded_as_failed_and_the_table_still_written(tmp_path, monkeypatch):
    import ding.entry.train

    def broken_start_run(*args, **kwargs):
        raise RuntimeError('env exploded')

    monkeypatch.setattr(ding.entry.train, 'start_run', broken_start_run)
    study = small_study(tmp_path, trials=2)
    with pytest.raises(RuntimeError, match='env exploded'):
        run_study(study)
    record = json.loads((tmp_path / 'study' / 'trials' / 'trial_0000' / 'trial.json').read_text())
    assert record['state'] == 'FAIL'
    assert [r['state'] for r in csv.DictReader(open(tmp_path / 'study' / 'trials.csv'))] == ['FAIL']
