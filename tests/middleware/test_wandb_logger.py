"""wandb_online_logger / wandb_offline_logger in wandb's offline mode (no network): what the run
recorded is read back from its local files (the run's .wandb record log and its files/)."""
import glob
import json
import math
import os
import struct

import numpy as np
import pytest
import torch

from ding.framework import task
from ding.framework.context import OfflineRLContext, OnlineRLContext
from ding.framework.contract import contract


def wandb_records(run_dir):
    """(kind, record) of every protobuf record in the run's .wandb file: a LevelDB-style log of
    32 KiB blocks after a 7-byte header, each chunk with a 7-byte header (crc, length, type)."""
    from wandb.proto import wandb_internal_pb2
    (path, ) = glob.glob(os.path.join(run_dir, 'run-*.wandb'))
    with open(path, 'rb') as f:
        data = f.read()
    assert data[:4] == b':W&B'
    pos, chunks, block = 7, b'', 32768
    while pos + 7 <= len(data):
        if block - pos % block < 7:  # a block's tail too short for a header is padding
            pos += block - pos % block
            continue
        _, length, kind = struct.unpack('<IHB', data[pos:pos + 7])
        chunks += data[pos + 7:pos + 7 + length]
        pos += 7 + length
        if kind in (1, 4):  # a FULL record, or the LAST chunk of one
            record = wandb_internal_pb2.Record()
            record.ParseFromString(chunks)
            chunks = b''
            yield record.WhichOneof('record_type'), record


def history(run_dir):
    """One dict per wandb.log call: key -> value (media as their JSON descriptions)."""
    rows = []
    for kind, record in wandb_records(run_dir):
        if kind == 'history':
            row = {}
            for item in record.history.item:
                *parents, leaf = list(item.nested_key) or [item.key]
                node = row
                for key in parents:  # a media value arrives as one item per field
                    node = node.setdefault(key, {})
                node[leaf] = json.loads(item.value_json)
            rows.append(row)
    return rows


def run_config(run_dir):
    for kind, record in wandb_records(run_dir):
        if kind == 'run':
            return {item.key: json.loads(item.value_json) for item in record.run.config.update}
    raise AssertionError('no run record')


@pytest.fixture
def offline_wandb(tmp_path, monkeypatch):
    import wandb  # noqa: F401  in the test extra: a missing install fails here
    monkeypatch.setenv('WANDB_MODE', 'offline')
    monkeypatch.setenv('WANDB_DIR', str(tmp_path))
    monkeypatch.setenv('WANDB_SILENT', 'true')
    yield tmp_path
    task.stop()


def the_run_dir(root):
    import wandb
    wandb.teardown()  # the run's records are written by wandb's service process: wait until it has flushed
    (run_dir, ) = glob.glob(os.path.join(str(root), 'wandb', 'offline-run-*'))
    return run_dir


def fake_steps(frames=None, outputs=None):
    """Step 1: two updates (q_value 1.0 and 3.0) and no evaluation; step 2: an evaluation of three
    episodes (returns 10, 20, 60) with the evaluator's frames and outputs, then the task finishes."""

    def _step(ctx):
        step = ctx.total_step + 1
        if hasattr(ctx, 'env_step'):
            ctx.env_step = 100 * step
        else:
            ctx.train_epoch = step
        ctx.train_iter = 10 * step
        ctx.train_output = [{'q_value': 1.0, 'cur_lr': 0.1}, {'q_value': 3.0, 'cur_lr': 0.1}]
        if step == 2:
            ctx.eval_value = 30.0
            ctx.eval_output = {'episode_return': [10.0, 20.0, 60.0]}
            if frames is not None:
                ctx.eval_output['replay_video'] = frames
            if outputs is not None:
                ctx.eval_output['output'] = outputs
            task.finish = True

    return contract(_step, writes=('env_step', 'train_iter', 'train_output', 'eval_value', 'eval_output'))


@pytest.mark.slow
def test_online_logger_records_metrics_config_video_and_model(offline_wandb, tmp_path):
    from ding.framework.middleware import wandb_online_logger
    model = torch.nn.Linear(3, 2)
    frames = np.random.default_rng(0).integers(0, 255, (6, 16, 16, 3), dtype=np.uint8)
    with task.start(ctx=OnlineRLContext()):
        task.use(fake_steps(frames))
        task.use(wandb_online_logger(record_path=str(tmp_path / 'videos'), cfg=dict(plot_logger=True,
                                                                                     video_logger=True),
                                     exp_config={'policy': {'learn': {'learning_rate': 0.001}}}, model=model,
                                     project_name='ding-test', run_name='online'))
        task.run(max_step=5)
        assert task.ctx.wandb_url == ''  # offline: no url
    run_dir = the_run_dir(offline_wandb)
    rows = history(run_dir)
    assert [row['_step'] for row in rows] == [100, 200]  # against env steps
    assert rows[0]['q_value'] == 2.0 and 'cur_lr' not in rows[0]  # the mean of the updates; only metric_list keys
    assert 'episode return mean' not in rows[0]
    assert rows[1]['episode return mean'] == 30.0 and rows[1]['episode return max'] == 60.0
    assert math.isclose(rows[1]['episode return std'], float(np.std([10.0, 20.0, 60.0])))
    assert rows[1]['env step'] == 200 and rows[1]['train iter'] == 20
    assert rows[1]['replay_video']['_type'] == 'video-file'
    assert os.path.isfile(tmp_path / 'videos' / 'eval_200.mp4')  # the evaluator's frames, as an MP4
    assert glob.glob(os.path.join(run_dir, 'files', 'media', 'videos', '*.mp4'))
    assert run_config(run_dir)['policy'] == {'learn': {'learning_rate': 0.001}}
    saved = torch.load(os.path.join(run_dir, 'files', 'model.pth.tar'))
    assert torch.equal(saved['weight'], model.weight.detach())


@pytest.mark.slow
def test_offline_logger_steps_on_train_iter_and_logs_new_video_files(offline_wandb, tmp_path):
    from ding.framework.middleware import wandb_offline_logger
    videos = tmp_path / 'videos'
    videos.mkdir()
    (videos / 'before.gif').write_bytes(b'GIF89a')  # already there when the logger started: not logged

    def _new_video(ctx):
        if ctx.total_step == 1:
            import imageio.v2 as imageio
            imageio.mimsave(str(videos / 'eval.gif'), [np.zeros((8, 8, 3), np.uint8)] * 2)

    with task.start(ctx=OfflineRLContext()):
        task.use(_new_video)
        task.use(fake_steps())
        task.use(wandb_offline_logger(record_path=str(videos), cfg=dict(plot_logger=True, video_logger=True),
                                      metric_list=['cur_lr'], run_name='offline'))
        task.run(max_step=5)
    rows = history(the_run_dir(offline_wandb))
    assert [row['_step'] for row in rows] == [10, 20]  # against train iterations
    assert rows[0]['cur_lr'] == 0.1 and 'q_value' not in rows[0]
    assert rows[1]['train_epoch'] == 2 and 'env step' not in rows[1]
    assert rows[1]['replay_video']['_type'] == 'video-file' and rows[1]['replay_video']['path'].endswith('.gif')


def test_switches_are_checked_before_wandb_starts(monkeypatch):
    import sys
    from ding.framework.middleware import wandb_online_logger
    monkeypatch.setitem(sys.modules, 'wandb', None)  # nothing below may get as far as importing it
    with pytest.raises(KeyError, match="unknown cfg keys \\['video_loger'\\]"):
        wandb_online_logger(cfg=dict(video_loger=True))
    with pytest.raises(NotImplementedError, match='vis_dataset'):
        wandb_online_logger(cfg=dict(vis_dataset=True))
    with pytest.raises(ValueError, match='gradient_logger needs model'):
        wandb_online_logger(cfg=dict(gradient_logger=True))
    with pytest.raises(ImportError, match='ding\\[wandb\\]'):
        wandb_online_logger(cfg=dict(plot_logger=True))


@pytest.mark.slow
def test_online_logger_action_and_return_switches(offline_wandb):
    from ding.framework.middleware import wandb_online_logger
    # two replayed episodes of 2-dim actions, 3 and 2 steps long
    outputs = [[{'action': np.array([0., 1.])}, {'action': np.array([1., 1.])}, {'action': np.array([2., 0.])}],
               [{'action': np.array([5., 5.]), 'logit': np.zeros(2)}, {'action': np.array([6., 5.])}]]
    with task.start(ctx=OnlineRLContext()):
        task.use(fake_steps(outputs=outputs))
        task.use(wandb_online_logger(cfg=dict(action_logger=True, return_logger=True), run_name='switches'))
        task.run(max_step=5)
    (row, ) = history(the_run_dir(offline_wandb))  # plot_logger is off: only the evaluation step logs
    assert row['_step'] == 200
    returns = row['return distribution']
    assert returns['_type'] == 'histogram' and sum(returns['values']) == 3  # three episodes
    actions = row['action']
    assert actions['_type'] == 'histogram' and sum(actions['values']) == 10  # 5 steps x 2 dims
    assert row['actions_of_trajectory_0_table']['nrows'] == 6  # 3 steps x 2 action dims
    assert row['actions_of_trajectory_1_table']['nrows'] == 4


class FakeWandb:
    class plot:
        @staticmethod
        def line_series(xs, ys, keys, title, xname):
            return {'xs': xs, 'ys': ys, 'keys': keys}

    @staticmethod
    def Histogram(values):
        return ('histogram', list(values))


def test_action_charts_draw_each_replayed_episode_and_need_the_outputs():
    from ding.framework.middleware.wandb_logger import _action_charts
    outputs = [[{'action': 1}, {'action': 0}], [{'action': np.array([3])}]]
    charts = _action_charts(FakeWandb, {'output': outputs})
    assert charts['actions_of_trajectory_0'] == {'xs': [1, 2], 'ys': [[1., 0.]], 'keys': ['action[0]']}
    assert charts['actions_of_trajectory_1']['ys'] == [[3.]]
    assert charts['action'] == ('histogram', [1., 0., 3.])
    with pytest.raises(ValueError, match='render=True'):
        _action_charts(FakeWandb, {'episode_return': [1.0]})
