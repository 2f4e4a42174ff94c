"""benchmarks/async_instructions.py: instructions per step from two run lengths, against sync's."""
import json
import sys

import pytest

from benchmarks import async_instructions


def test_per_step_counts_cancel_the_set_up_and_compare_with_sync(tmp_path, monkeypatch):
    # set-up 1,000 instructions; a sync step 100, an inline step 103; 2 steps more at 1,300 env steps
    per_step = {'sync': 100, 'inline': 103}
    steps = {1100: 101, 1300: 301}

    def fake_count(setting, algo, env_steps, seed):
        n = steps[env_steps]
        return dict(instructions=1000 + per_step[setting] * n, steps=None if setting == 'sync' else n,
                    seconds_under_valgrind=1.0)

    monkeypatch.setattr(async_instructions, 'count', fake_count)
    monkeypatch.setattr(async_instructions.shutil, 'which', lambda name: '/usr/bin/valgrind')
    out = tmp_path / 'ai.json'
    monkeypatch.setattr(sys, 'argv', ['ai', '--settings', 'inline', '--out', str(out)])
    async_instructions.main()
    result = json.loads(out.read_text())
    assert result['steps'] == [101, 301]
    assert result['settings']['sync']['instructions_per_step'] == 100
    assert result['settings']['inline']['instructions_per_step'] == 103
    assert result['settings']['inline']['ratio_to_sync'] == 1.03 and result['settings']['inline']['extra_per_step'] == 3


def test_sync_alone_is_refused(monkeypatch):
    monkeypatch.setattr(async_instructions.shutil, 'which', lambda name: '/usr/bin/valgrind')
    monkeypatch.setattr(sys, 'argv', ['ai', '--settings', 'sync'])
    with pytest.raises(SystemExit):
        async_instructions.main()
