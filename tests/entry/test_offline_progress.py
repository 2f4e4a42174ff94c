"""An offline run (`ding train --dataset`) writes progress.csv and result.json as an online run does,
a row per evaluation and one at the end, counted in updates; `ding plot` draws it against updates
and refuses to mix it with an online run."""
import json
import os


from ding.entry.cli import main


def rows(run_dir):
    with open(os.path.join(run_dir, 'result.json')) as f:
        return [json.loads(line) for line in f if line.strip()]


def test_offline_run_writes_progress_and_plots_against_updates(tmp_path, monkeypatch, dataset, capsys):
    monkeypatch.chdir(tmp_path)
    small = json.dumps({'env': {'n_evaluator_episode': 1, 'evaluator_env_num': 1},
                        'policy': {'eval': {'evaluator': {'eval_freq': 4}}}})
    assert main(['train', '--algo', 'bc', '--env', 'CartPole-v0', '--dataset', dataset, '--max-train-iter', '10',
                 '--config', small, '--exp-name', 'off']) == 0
    written = rows('off')
    evaluated = [r['train_iter'] for r in written if r['eval_return_mean'] is not None]
    # the counters at the step's end, as online rows: evaluations before the updates 0, 4 and 8
    assert evaluated == [1, 5, 9] and written[-1]['train_iter'] == 10  # the end's row, after the last evaluation
    assert all(r['env_step'] == 0 and r['eval_episodes'] in (1, None) for r in written)
    assert 'train_epoch' in written[-1] and any(k.startswith('train_') and k != 'train_iter' and k != 'train_epoch'
                                                 for k in written[-1])
    with open(os.path.join('off', 'progress.csv')) as f:
        lines = f.read().splitlines()
    assert lines[0].startswith('env_step,train_iter,') and len(lines) == len(written) + 1

    assert main(['plot', 'off', '-o', 'off.png']) == 0
    assert os.path.getsize('off.png') > 0 and 'wrote off.png: off (1 run)' in capsys.readouterr().out


def test_plot_refuses_online_and_offline_runs_together(tmp_path, monkeypatch, capsys):
    from ding.utils.run_dir import RunDir
    monkeypatch.chdir(tmp_path)
    for name, offline in (('online', False), ('offline', True)):
        os.makedirs(name)
        RunDir(name).write_meta({'offline': offline} if offline else {'algo': 'dqn'})
        with open(os.path.join(name, 'result.json'), 'w') as f:
            f.write(json.dumps({'env_step': 0, 'train_iter': 5, 'eval_return_mean': 1.0}) + '\n')
    assert main(['plot', 'online', 'offline', '-o', 'x.png']) == 2
    assert 'mix online runs' in capsys.readouterr().err and not os.path.exists('x.png')
