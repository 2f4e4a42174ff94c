"""Middleware given duck-typed policies and envs, as DI-engine's own tests build them: `Mock`
subclasses whose `__init__` takes no `parent`, so asking one for a name it does not define
raises TypeError instead of AttributeError. Our middleware asks such objects only for what
they define (ding/utils/duck_typing.py)."""
import sys
from unittest.mock import Mock

import numpy as np
import pytest
import torch

from ding.framework.context import OnlineRLContext
from ding.framework.middleware import inferencer
from ding.compat.duck_typed_mode import DuckTypedMode
from ding.utils import protocol_adapters
from ding.utils.protocol_adapters import batched_env, batched_policy
from ding.utils.duck_typing import has_attr, optional_attr


class StrictMock(Mock):

    def __init__(self) -> None:  # no **kwargs: building a child mock raises TypeError
        super().__init__()
        self.env_num = 2

    def forward(self, data: dict, **kwargs) -> dict:
        return {i: {'action': torch.sum(v)} for i, v in data.items()}


def test_a_strict_mock_is_asked_only_for_what_it_defines():
    obj = StrictMock()
    with pytest.raises(TypeError):
        obj.transition_keys  # what a plain getattr / hasattr probe does
    assert optional_attr(obj, 'transition_keys', ()) == ()
    assert not has_attr(obj, 'forward_batch')
    assert has_attr(obj, 'forward') and optional_attr(obj, 'env_num') == 2


def test_plain_objects_are_asked_as_usual():

    class Delegating:

        def __getattr__(self, name):  # a wrapper forwarding to what it wraps
            return name.upper()

    assert optional_attr(Delegating(), 'anything') == 'ANYTHING'
    assert optional_attr(object(), 'missing', 3) == 3


def test_a_di_engine_protocol_mode_gets_forward_batch_and_keeps_its_per_env_outputs():
    mode = batched_policy(StrictMock())  # the adapter `import ding` installed (ding/compat/__init__.py)
    assert isinstance(mode, DuckTypedMode)
    obs = np.stack([np.zeros((2, 2)), np.ones((2, 2))]).astype(np.float32)
    out = mode.forward_batch(obs)
    assert out['action'].tolist() == [0.0, 4.0]
    assert float(out.per_env[1]['action']) == 4.0
    assert mode.transition_recorder(2) is None  # it cannot build transitions: no process_transition
    ours = Mock(spec=['forward_batch'])
    assert batched_policy(ours) is ours
    with pytest.raises(TypeError, match='neither forward_batch'):
        batched_policy(object())


def test_without_an_installed_adapter_a_foreign_object_is_a_type_error(monkeypatch):
    monkeypatch.setattr(protocol_adapters, '_ADAPTERS', {'policy': None, 'env': None})
    with pytest.raises(TypeError, match='StrictMock is no policy mode: it has no forward_batch'):
        batched_policy(StrictMock())
    with pytest.raises(TypeError, match='StrictMock is no env manager: it has no step_batch'):
        batched_env(StrictMock())
    ours = Mock(spec=['forward_batch', 'step_batch'])
    assert batched_policy(ours) is ours and batched_env(ours) is ours


def test_the_inferencer_writes_a_di_engine_policys_own_outputs():

    class Env(StrictMock):
        closed = False
        ready_obs = np.stack([np.zeros((2, 2)), np.ones((2, 2))]).astype(np.float32)

        def seed(self, seed, dynamic_seed=None):
            self.seeded = seed

        def launch(self):
            raise AssertionError('the env is not closed')

        def step(self, actions):
            raise AssertionError('the inferencer does not step')

    ctx = OnlineRLContext()
    inferencer(0, StrictMock(), Env())(ctx)
    assert ctx.action.tolist() == [0.0, 4.0]
    assert float(ctx.inference_output[1]['action']) == 4.0  # DI-engine's {env_id: output}


def test_ttorch_collate_says_what_it_needs_without_treetensor(monkeypatch):
    from ding.utils.data import ttorch_collate
    monkeypatch.setitem(sys.modules, 'treetensor', None)
    monkeypatch.setitem(sys.modules, 'treetensor.torch', None)
    with pytest.raises(ImportError, match='pip install DI-treetensor'):
        ttorch_collate([{'a': [1.0]}])


def test_ttorch_collate_stacks_and_squeezes_one_element_fields():
    ttorch = pytest.importorskip('treetensor.torch')  # DI-treetensor: an optional dependency
    from ding.utils.data import ttorch_collate
    items = [ttorch.Tensor({'reward': [1.0], 'obs': torch.zeros(3), 'nested': {'x': [0]}}) for _ in range(4)]
    out = ttorch_collate(items)
    assert tuple(out.reward.shape) == (4, ) and tuple(out.obs.shape) == (4, 3) and tuple(out.nested.x.shape) == (4, )
    assert tuple(ttorch_collate(items, cat_1dim=False).reward.shape) == (4, 1)
    assert isinstance(ttorch_collate(items, json=True), dict)
