import math
import pickle
from dataclasses import dataclass

import pytest

from ding.framework import Context, OfflineRLContext, OnlineRLContext
from ding.framework.context import field_names

ONLINE_DEFAULTS = dict(
    total_step=0, env_step=0, env_episode=0, train_iter=0, train_data=None, train_output=None, collect_kwargs={},
    obs=None, action=None, inference_output=None, trajectories=None, episodes=None, trajectory_end_idx=[],
    eval_value=-math.inf, last_eval_iter=-1, last_eval_value=-math.inf, eval_output={}, info_for_logging={},
    wandb_url='', env_restarts=0, dropped_episodes=0, eval_env_restarts=0, eval_dropped_episodes=0
)
OFFLINE_DEFAULTS = dict(
    total_step=0, trained_env_step=0, train_epoch=0, train_iter=0, train_data=None, train_output=None,
    eval_value=-math.inf, last_eval_iter=-1, last_eval_value=-math.inf, eval_output={}, info_for_logging={},
    wandb_url='', eval_env_restarts=0, eval_dropped_episodes=0
)


@pytest.mark.parametrize('cls, defaults', [(OnlineRLContext, ONLINE_DEFAULTS), (OfflineRLContext, OFFLINE_DEFAULTS)])
def test_fields_and_defaults(cls, defaults):
    ctx = cls()
    assert field_names(cls) == set(defaults)
    assert {name: getattr(ctx, name) for name in defaults} == defaults


def test_default_kept_fields():
    assert OnlineRLContext().kept_names == {
        'env_step', 'env_episode', 'train_iter', 'last_eval_iter', 'last_eval_value', 'wandb_url', 'env_restarts',
        'dropped_episodes', 'eval_env_restarts', 'eval_dropped_episodes'
    }
    assert OfflineRLContext().kept_names == {
        'trained_env_step', 'train_iter', 'last_eval_iter', 'last_eval_value', 'wandb_url', 'eval_env_restarts',
        'eval_dropped_episodes'
    }
    assert Context().kept_names == frozenset()


def test_iter_kept_names_follows_keep():
    ctx = Context()
    assert list(ctx.iter_kept_names()) == []
    ctx.keep('my_counter')
    assert set(ctx.iter_kept_names()) == {'my_counter'} == ctx.kept_names


def test_unknown_attribute_names_closest_field():
    ctx = OnlineRLContext()
    with pytest.raises(AttributeError, match=r"no field 'env_stpe' \(did you mean 'env_step'\?\)"):
        ctx.env_stpe = 3
    with pytest.raises(AttributeError, match=r"did you mean 'trajectories'"):
        ctx.trajectorie
    with pytest.raises(AttributeError, match=r"did you mean 'train_iter'"):
        ctx.keep('train_itr')


def test_item_access_is_a_type_error():
    ctx = OnlineRLContext()
    with pytest.raises(TypeError, match=r'use ctx.env_step'):
        ctx['env_step']
    with pytest.raises(TypeError):
        ctx['env_step'] = 1


def test_renew_carries_kept_fields_and_resets_the_rest():
    ctx = OnlineRLContext()
    ctx.env_step, ctx.train_iter, ctx.last_eval_value = 40, 7, 12.5
    ctx.train_data, ctx.eval_value = [1, 2], 3.0
    ctx.collect_kwargs['eps'] = 0.5
    new = ctx.renew()
    assert type(new) is OnlineRLContext
    assert (new.total_step, new.env_step, new.train_iter, new.last_eval_value) == (1, 40, 7, 12.5)
    assert (new.train_data, new.eval_value, new.collect_kwargs) == (None, -math.inf, {})
    assert ctx.collect_kwargs == {'eps': 0.5}


def test_custom_keep_lasts_100_renews():
    ctx = OnlineRLContext()
    ctx.keep('train_data')
    ctx.train_data = 'kept'
    ctx.obs = 'dropped'
    for _ in range(100):
        ctx = ctx.renew()
    assert (ctx.total_step, ctx.train_data, ctx.obs) == (100, 'kept', None)
    assert 'train_data' in ctx.kept_names


def test_context_pickles():
    ctx = OfflineRLContext()
    ctx.keep('train_epoch')
    ctx.train_epoch, ctx.train_iter, ctx.total_step = 3, 9, 4
    back = pickle.loads(pickle.dumps(ctx))
    assert back == ctx
    assert back.kept_names == ctx.kept_names
    with pytest.raises(AttributeError, match='did you mean'):
        back.train_epochs = 1
    assert back.renew().train_epoch == 3
    strict = pickle.loads(pickle.dumps(OfflineRLContext(strict=True)))
    with pytest.raises(AttributeError):
        strict.not_a_field = 1


@dataclass
class KeepInPostInitContext(Context):
    """DI-engine's pattern: the subclass's `__post_init__` calls `keep` and never calls super."""
    counter: int = 0
    scratch: int = 0

    def __post_init__(self):
        self.keep('counter')


def test_subclass_with_own_post_init_calling_keep():
    ctx = KeepInPostInitContext()
    ctx.counter, ctx.scratch = 5, 7
    new = ctx.renew()
    assert (new.total_step, new.counter, new.scratch) == (1, 5, 0)
    assert new.kept_names == {'counter'}
    assert pickle.loads(pickle.dumps(new)).renew().counter == 5
