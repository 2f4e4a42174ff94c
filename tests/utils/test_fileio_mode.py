"""Atomic writes leave the permission bits a plain open(path, 'w') would, not mkstemp's 0600."""
import os
import stat

import pytest

from ding.utils.fileio import atomic_torch_save, atomic_write_json, atomic_write_text, current_umask


def mode_of(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask():
    """Set a umask for one test and put the old one back."""
    saved = []

    def _set(mask):
        saved.append(os.umask(mask))

    yield _set
    if saved:
        os.umask(saved[0])


@pytest.mark.parametrize('mask, expected', [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_new_files_get_0666_less_the_umask(tmp_path, umask, mask, expected):
    umask(mask)
    atomic_write_text(tmp_path / 'a.txt', 'x')
    atomic_write_json(tmp_path / 'b.json', {'k': 1})
    atomic_torch_save({'w': 1}, tmp_path / 'ckpt' / 'c.pth.tar')
    with open(tmp_path / 'plain.txt', 'w') as f:
        f.write('x')
    assert mode_of(tmp_path / 'plain.txt') == expected
    assert [mode_of(tmp_path / p) for p in ('a.txt', 'b.json', 'ckpt/c.pth.tar')] == [expected] * 3


def test_replacing_a_file_keeps_its_mode(tmp_path, umask):
    umask(0o022)
    path = tmp_path / 'result.json'
    atomic_write_text(path, 'old')
    os.chmod(path, 0o640)
    atomic_write_text(path, 'new')
    assert path.read_text() == 'new' and mode_of(path) == 0o640


def test_current_umask_reads_without_changing_it(umask):
    umask(0o027)
    assert current_umask() == 0o027
    assert current_umask() == 0o027
