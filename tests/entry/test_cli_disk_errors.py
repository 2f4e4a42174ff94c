"""A full disk, a read-only location or a missing permission while a run directory is written
(checkpoints, progress.csv, result.json, the directory itself) ends in one line
`ding: error: ...` naming the path and the cause, exit status 1, no traceback."""
import errno
import json
import os

import pytest

from ding.entry.cli import main
from ding.utils.fileio import FileWriteError, atomic_torch_save, atomic_write_json, atomic_write_with

TRAIN = ['train', '--algo', 'dqn', '--env', 'CartPole-v1', '--max-env-step', '200', '--checkpoint-freq', '100',
         '--config', json.dumps({'env': {'n_evaluator_episode': 2},
                                 'policy': {'random_collect_size': 0, 'collect': {'n_sample': 32},
                                            'learn': {'update_per_collect': 2},
                                            'eval': {'evaluator': {'eval_freq': 50}}}})]


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fail_fsync_of(monkeypatch, name_part, code):
    """fsync of a file whose path contains `name_part` raises OSError(code), as a full disk or
    a read-only file system does; other files are written."""
    real_fsync = os.fsync

    def fsync(fd):
        if name_part in os.readlink(f'/proc/self/fd/{fd}'):
            raise OSError(code, os.strerror(code))
        return real_fsync(fd)

    monkeypatch.setattr(os, 'fsync', fsync)


def one_error_line(capsys, argv):
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith('ding: error: ') and len(err.splitlines()) == 1 and 'Traceback' not in err, err
    return err


@pytest.mark.parametrize('name_part, code, cause', [
    ('.pth.tar', errno.ENOSPC, 'no space left on the device (ENOSPC)'),
    ('progress.csv', errno.EROFS, 'read-only file system (EROFS)'),
    ('result.json', errno.EACCES, 'permission denied (EACCES)'),
])
def test_a_run_file_that_cannot_be_written_is_one_line(in_tmp, capsys, monkeypatch, name_part, code, cause):
    fail_fsync_of(monkeypatch, name_part, code)
    err = one_error_line(capsys, TRAIN + ['--exp-name', 'run'])
    assert err.startswith('ding: error: cannot write run/') and name_part in err and err.endswith(cause)


def test_a_run_directory_that_cannot_be_made_is_one_line(in_tmp, capsys, monkeypatch):
    real_mkdir = os.mkdir

    def mkdir(path, *args, **kwargs):  # root ignores permission bits: refuse as a read-only location would
        if 'locked' in os.fspath(path):
            raise PermissionError(errno.EACCES, 'Permission denied', os.fspath(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, 'mkdir', mkdir)
    err = one_error_line(capsys, TRAIN + ['--exp-name', 'locked/run'])
    assert err == 'ding: error: locked: permission denied (EACCES)' or \
        err == 'ding: error: locked/run: permission denied (EACCES)', err


def test_a_run_directory_under_a_file_is_one_line(in_tmp, capsys):
    (in_tmp / 'afile').write_text('')
    assert one_error_line(capsys, TRAIN + ['--exp-name', 'afile/run']) == \
        'ding: error: afile/run: a part of the path is a file, not a directory (ENOTDIR)'


def test_atomic_writes_name_the_file_and_the_cause_whatever_wraps_it(tmp_path, monkeypatch):
    fail_fsync_of(monkeypatch, 'x.json', errno.ENOSPC)
    with pytest.raises(FileWriteError) as err:
        atomic_write_json(str(tmp_path / 'x.json'), {'a': 1})
    assert str(err.value) == f'cannot write {tmp_path}/x.json: no space left on the device (ENOSPC)'
    assert os.listdir(tmp_path) == []  # the temporary file is gone

    def torch_style(obj, f):  # torch's writer reports a full disk as a RuntimeError, the OSError in its chain
        try:
            raise OSError(errno.ENOSPC, 'No space left on device')
        except OSError as cause:
            raise RuntimeError('[enforce fail at inline_container.cc:778] . unexpected pos 64 vs 0') from cause

    monkeypatch.setattr('torch.save', torch_style)
    with pytest.raises(FileWriteError, match=r'cannot write .*ck\.pt: no space left on the device \(ENOSPC\)'):
        atomic_torch_save({}, str(tmp_path / 'ck.pt'))


def test_other_errors_are_not_rewritten(tmp_path):
    def broken(f):
        raise OSError(errno.EIO, 'Input/output error')  # not a cause the user fixes: the error stays as it is

    with pytest.raises(OSError, match='Input/output error') as err:
        atomic_write_with(str(tmp_path / 'x.bin'), broken)
    assert not isinstance(err.value, FileWriteError)
