"""`ding export RUN_DIR --format torchscript|onnx [--ckpt eval|final] [-o OUT]` on a tiny run:
the files it writes act like the run's policy, and every mistake is one `ding: error:` line."""
import sys
import warnings

import numpy as np
import pytest
import torch

from ding.entry.cli import main
from ding.entry.evaluate import load_policy, run_config


def error_of(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith('ding: error: ') and 'Traceback' not in err, err
    return err


def test_export_writes_both_formats_that_act_like_the_checkpoint(tiny_run, tmp_path, capsys):
    import onnxruntime
    assert main(['export', str(tiny_run), '--format', 'onnx', '--outputs', 'action,logit']) == 0
    out = capsys.readouterr().out
    onnx_path = tiny_run / 'export' / 'actor_eval.onnx'
    assert 'exported DQNPolicy [' in out and f'ckpt/eval.pth.tar] as onnx: {onnx_path}' in out
    assert 'input obs float32 [B, 4] -> action int64, logit float32' in out

    ts_path = tmp_path / 'deploy' / 'actor.pt'
    assert main(['export', str(tiny_run), '--format', 'torchscript', '--ckpt', 'final', '-o', str(ts_path)]) == 0
    assert 'ckpt/final.pth.tar] as torchscript' in capsys.readouterr().out

    obs = np.random.default_rng(0).standard_normal((200, 4)).astype(np.float32)
    policy = load_policy(run_config(str(tiny_run)), str(tiny_run / 'ckpt' / 'eval.pth.tar'))
    expected = policy.eval_mode.forward_batch(obs)
    action, logit = onnxruntime.InferenceSession(str(onnx_path)).run(['action', 'logit'], {'obs': obs})
    assert (action == expected['action']).all() and np.abs(logit - expected['logit']).max() < 1e-5
    final = load_policy(run_config(str(tiny_run)), str(tiny_run / 'ckpt' / 'final.pth.tar'))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)  # torch.jit.load
        ts_action = torch.jit.load(str(ts_path))(torch.from_numpy(obs)).numpy()
    assert (ts_action == final.eval_mode.forward_batch(obs)['action']).all()


def test_cli_formats_are_the_exporters():
    from ding.entry.export import FORMATS
    from ding.policy.export import EXPORT_FORMATS
    assert FORMATS == EXPORT_FORMATS


def test_export_of_a_checkpoint_file(tiny_run, tmp_path, capsys):
    target = tmp_path / 'a.pt'
    assert main(['export', str(tiny_run / 'ckpt' / 'final.pth.tar'), '--format', 'torchscript', '-o',
                 str(target)]) == 0
    assert target.is_file() and 'final.pth.tar] as torchscript' in capsys.readouterr().out


@pytest.mark.parametrize('args, message', [
    (['--format', 'tflite'], "argument --format: invalid choice: 'tflite' (choose from 'torchscript', 'onnx')"),
    (['--format', 'onnx', '--ckpt', 'best'], "argument --ckpt: invalid choice: 'best' (choose from 'eval', 'final')"),
    (['--format', 'onnx', '--outputs', 'value'], "DQNPolicy's eval forward has no output ['value']; it yields: "
                                                  "action, logit"),
])
def test_bad_export_arguments(tiny_run, tmp_path, capsys, args, message):
    assert message in error_of(capsys, ['export', str(tiny_run), '-o', str(tmp_path / 'x')] + args)
    assert not (tmp_path / 'x').exists()


def test_missing_run_dir_or_checkpoint(tiny_run, tmp_path, capsys):
    err = error_of(capsys, ['export', str(tmp_path / 'nope'), '--format', 'onnx'])
    assert f'{tmp_path / "nope"} does not exist: expected a run directory or a checkpoint inside one' in err
    err = error_of(capsys, ['export', str(tmp_path), '--format', 'onnx'])
    assert f'{tmp_path} is not a run directory or a checkpoint inside one' in err
    err = error_of(capsys, ['export', str(tiny_run / 'ckpt' / 'eval.pth.tar'), '--format', 'onnx', '--ckpt', 'final'])
    assert '--ckpt final names a checkpoint of a run directory, but' in err


@pytest.mark.parametrize('module', ['onnx', 'onnxruntime'])
def test_onnx_export_without_the_extra_names_it(tiny_run, tmp_path, capsys, monkeypatch, module):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    err = error_of(capsys, ['export', str(tiny_run), '--format', 'onnx', '-o', str(tmp_path / 'a.onnx')])
    assert f'{module} is not installed; install it with: pip install "ding[export]"' in err
    assert not (tmp_path / 'a.onnx').exists()
