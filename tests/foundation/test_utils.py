import os

import pytest
import torch
from easydict import EasyDict

from ding.framework.contract import contract, middleware_name, require_config
from ding.utils.dicts import deep_merge
from ding.utils.fileio import atomic_torch_save, atomic_write_json
from ding.utils.registry import Registry


def test_require_config_names_owner_key_and_closest():
    cfg = EasyDict(policy=dict(learn=dict(batch_size=4)))
    require_config(cfg, 'trainer', 'policy.learn.batch_size')
    with pytest.raises(KeyError, match="trainer needs config key cfg.policy.learn.bach_size.*did you mean 'batch_size'"):
        require_config(cfg, 'trainer', 'policy.learn.bach_size')


def test_contract_attaches_fields():
    def _collector(ctx):
        pass

    fn = contract(_collector, reads=('obs', ), writes=('action', ), fresh_weights=True)
    assert fn.reads == ('obs', ) and fn.writes == ('action', ) and fn.fresh_weights
    assert middleware_name(fn) == 'collector'


def test_deep_merge_user_wins_and_copies():
    base = {'a': {'b': 1, 'c': [1]}}
    out = deep_merge(base, {'a': {'b': 2}})
    assert out.a.b == 2 and out.a.c == [1]
    out.a.c.append(2)
    assert base['a']['c'] == [1]


def test_registry_suggests_and_declares_lazily():
    reg = Registry('thing')
    reg.register('alpha', int)
    assert reg.lookup('alpha') is int
    with pytest.raises(KeyError, match="did you mean 'alpha'"):
        reg.lookup('alpah')
    with pytest.raises(KeyError, match='already registered'):
        reg.register('alpha', float)
    reg.declare('ding.utils', {'beta': 'dicts'})
    with pytest.raises(KeyError, match="known: \\['alpha', 'beta'\\]"):
        reg.lookup('beta')  # the module imports but registers nothing under 'beta'


def test_atomic_writes_replace_whole_files(tmp_path):
    path = tmp_path / 'sub' / 'x.json'
    atomic_write_json(path, {'a': 1})
    atomic_write_json(path, {'a': 2})
    assert path.read_text().strip().endswith('}') and '"a": 2' in path.read_text()
    assert os.listdir(tmp_path / 'sub') == ['x.json']  # no temporary left behind
    atomic_torch_save({'w': torch.ones(2)}, tmp_path / 'm.pth')
    assert torch.load(tmp_path / 'm.pth')['w'].sum() == 2
