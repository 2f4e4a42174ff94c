"""`ding plot` never overwrites a file it was not told to, and an image format matplotlib
cannot write is one `ding: error:` line."""
import json
import os

import pytest

from ding.entry.cli import main

pytest.importorskip('matplotlib')


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs('dqn_seed0')
    with open('dqn_seed0/result.json', 'w') as f:
        for step, ret in [(0, 10.0), (1000, 100.0)]:
            f.write(json.dumps({'env_step': step, 'eval_return_mean': ret}) + '\n')
    return 'dqn_seed0'


def test_without_o_an_existing_curve_png_is_kept(run, capsys):
    with open('curve.png', 'w') as f:
        f.write('mine')
    assert main(['plot', run]) == 0
    assert capsys.readouterr().out.strip() == \
        'wrote curve-2.png (curve.png exists and is kept; -o curve.png overwrites it): dqn (1 run)'
    assert open('curve.png').read() == 'mine' and os.path.getsize('curve-2.png') > 1000
    assert main(['plot', run]) == 0
    assert 'wrote curve-3.png' in capsys.readouterr().out
    assert main(['plot', run, '-o', 'curve.png']) == 0  # asked for: overwritten
    assert open('curve.png', 'rb').read(4) == b'\x89PNG'


def test_an_unknown_image_format_is_one_line(run, capsys):
    assert main(['plot', run, '-o', 'x.jpgx']) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("ding: error: -o x.jpgx: matplotlib cannot write '.jpgx' "
                                                         "images; use one of ") and '.png' in err, err
    assert not os.path.exists('x.jpgx')
