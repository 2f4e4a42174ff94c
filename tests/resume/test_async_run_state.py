"""`ding train --async`: every run-state checkpoint holds whole steps, as in sync mode. The
saver waits until no step is in flight (task.between_steps); saving at the step's end instead
caught the next step between its collector and its pusher, or inside the learner. With envs in
this process the steps do not overlap (async_pipeline.why_sync): the sync loop must then run
each step's backward parts itself, not hand them to the pool of `task.backward`, or the saver
ran beside the next step."""
import json

import pytest

from ding.entry.cli import main as ding_main
from ding.framework.middleware.run_state import RunStateSaver


SMALL = json.dumps({'env': {'n_evaluator_episode': 2},
                    'policy': {'collect': {'n_sample': 8}, 'learn': {'update_per_collect': 2},
                               'random_collect_size': 0, 'eval': {'evaluator': {'eval_freq': 200}},
                               'other': {'replay_buffer': {'replay_buffer_size': 100000}}}})


def unaccounted(state: dict) -> tuple:
    """(collected rows in neither the buffer nor the n-step stage, updates the learner made
    that the ctx does not count): (0, 0) for a checkpoint of whole steps."""
    ctx, policy = state['ctx'], state['policy']
    pending = state['extra'].get('nstep_reward_enhancer', {}).get('pending', {})
    rows = int(state['buffer']['buffer']['count']) + sum(len(r['reward']) for r in pending.values())
    return ctx['env_step'] - rows, policy['learn_step'] - ctx['train_iter']


def with_manager(manager: str) -> str:
    config = json.loads(SMALL)
    config['env']['manager'] = {'type': manager}
    return json.dumps(config)


@pytest.mark.parametrize('manager', ['base', 'subprocess'])  # steps run one by one / overlap
def test_async_run_state_checkpoints_hold_whole_steps(tmp_path, monkeypatch, manager):
    captured = []
    capture = RunStateSaver.capture

    def checked(self, ctx, finished):
        state = capture(self, ctx, finished)
        captured.append((unaccounted(state), finished))
        return state

    monkeypatch.setattr(RunStateSaver, 'capture', checked)
    monkeypatch.chdir(tmp_path)
    code = ding_main(['train', '--algo', 'dqn', '--env', 'CartPole-v1', '--max-env-step', '800', '--checkpoint-freq',
                      '40', '--config', with_manager(manager), '--exp-name', 'run', '--no-progress', '--async'])
    assert code == 0
    assert json.loads((tmp_path / 'run' / 'run.json').read_text())['async_mode'] is True
    assert len(captured) >= 15 and captured[-1][1] is True  # the last one is the finished run's
    assert [c for c, _ in captured] == [(0, 0)] * len(captured)


def test_max_lag_reaches_the_pipeline_and_run_json_and_needs_async(tmp_path, monkeypatch, capsys):
    from ding.framework import async_pipeline
    lags = []
    init = async_pipeline.AsyncPipeline.__init__

    def recorded(self, middlewares, first_ctx, max_lag, *args, **kwargs):
        lags.append(max_lag)
        init(self, middlewares, first_ctx, max_lag, *args, **kwargs)

    monkeypatch.setattr(async_pipeline.AsyncPipeline, '__init__', recorded)
    monkeypatch.chdir(tmp_path)
    code = ding_main(['train', '--algo', 'dqn', '--env', 'CartPole-v1', '--max-env-step', '200', '--config',
                      with_manager('subprocess'), '--exp-name', 'run', '--no-progress', '--async', '--max-lag', '3'])
    assert code == 0 and lags == [3]
    assert json.loads((tmp_path / 'run' / 'run.json').read_text())['max_lag'] == 3
    code = ding_main(['train', '--algo', 'dqn', '--env', 'CartPole-v1', '--max-lag', '3', '--exp-name', 'other'])
    assert code == 2
    assert '--max-lag bounds how far collection runs ahead of training in --async mode' in capsys.readouterr().err
    assert ding_main(['train', '--algo', 'dqn', '--env', 'CartPole-v1', '--async', '--max-lag', '-1']) == 2


def test_async_is_refused_with_a_distributed_plan(tmp_path, capsys):
    code = ding_main(['train', '--algo', 'dqn', '--env', 'CartPole-v1', '--async', '--collectors', '2',
                      '--exp-name', str(tmp_path / 'run')])
    assert code == 2
    assert '--async runs one process' in capsys.readouterr().err
