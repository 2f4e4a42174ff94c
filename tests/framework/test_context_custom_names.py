"""Custom ctx names as in DI-engine, the typo guard, declare(), strict mode and kept custom names."""
import copy
import pickle
from dataclasses import dataclass, fields

import pytest

from ding.framework import Context, OnlineRLContext
from ding.utils.keys import edit_distance


def test_edit_distance_counts_a_swap_as_one_edit():
    assert edit_distance('env_stpe', 'env_step') == 1
    assert edit_distance('eps', 'obs') == 2
    assert edit_distance('', 'abc') == 3
    assert edit_distance('kitten', 'sitting') == 3


def test_undeclared_name_lives_one_step():
    ctx = OnlineRLContext()
    ctx.my_field = 3
    ctx.trajectories_copy = [1]  # DI-engine's own middleware writes these
    ctx.eval_value_std = 0.5
    assert (ctx.my_field, ctx.has_attr('my_field'), ctx.custom_names) == (
        3, True, {'my_field', 'trajectories_copy', 'eval_value_std'})
    new = ctx.renew()
    assert not hasattr(new, 'my_field') and not new.has_attr('eval_value_std')
    with pytest.raises(AttributeError, match=r"no custom name 'my_field' was set in this step"):
        new.my_field


@pytest.mark.parametrize('typo, field', [('env_stpe', 'env_step'), ('trajectorie', 'trajectories'),
                                         ('actions', 'action'), ('eval_val', 'eval_value'), ('ob', 'obs')])
def test_name_close_to_a_field_raises_with_did_you_mean(typo, field):
    ctx = OnlineRLContext()
    with pytest.raises(AttributeError, match=rf"no field '{typo}' \(did you mean '{field}'\?\).*ctx.declare"):
        setattr(ctx, typo, 1)
    with pytest.raises(AttributeError, match='did you mean'):
        ctx.keep(typo)


@pytest.mark.parametrize('name', ['eps', 'loss', 'q', 'my_counter', 'eval_value_min'])
def test_short_or_distant_names_are_not_typos(name):
    ctx = OnlineRLContext()
    setattr(ctx, name, 1)
    assert getattr(ctx, name) == 1


def test_declared_name_passes_the_guard_for_the_whole_run():
    ctx = OnlineRLContext()
    ctx.declare('env_steps')
    ctx.env_steps = 4
    for _ in range(3):
        ctx = ctx.renew()
    ctx.env_steps = 5  # still declared after renews
    assert 'env_steps' in ctx.declared_names


def test_methods_cannot_be_overwritten():
    with pytest.raises(AttributeError, match='cannot be assigned'):
        OnlineRLContext().keep = 1


def test_keep_of_a_custom_name_lasts_the_run():
    ctx = OnlineRLContext()
    ctx.keep('best_return', 'never_set')
    ctx.best_return = 7.0
    for _ in range(100):
        ctx = ctx.renew()
    assert (ctx.total_step, ctx.best_return) == (100, 7.0)
    assert not ctx.has_attr('never_set') and {'best_return', 'never_set'} <= ctx.kept_names
    back = pickle.loads(pickle.dumps(ctx))
    assert back.renew().best_return == 7.0


def test_strict_is_an_option_not_a_field():
    assert [f.name for f in fields(OnlineRLContext)][:3] == ['total_step', 'env_step', 'env_episode']
    assert OnlineRLContext(0, 5).env_step == 5  # positional construction as in DI-engine
    ctx = OnlineRLContext(strict=True, env_step=2)
    assert ctx == OnlineRLContext(env_step=2) and 'strict' not in repr(ctx)
    with pytest.raises(AttributeError, match=r"no field 'my_field'; subclass OnlineRLContext"):
        ctx.my_field = 1
    with pytest.raises(AttributeError):
        ctx.keep('my_field')
    with pytest.raises(AttributeError):
        ctx.declare('my_field')
    assert ctx.renew().strict and copy.deepcopy(ctx).strict and not OnlineRLContext().strict


@dataclass
class StrictContext(OnlineRLContext, strict=True):
    extra: int = 0


def test_strict_subclass_and_override():
    assert StrictContext().strict and not StrictContext(strict=False).strict
    with pytest.raises(AttributeError):
        StrictContext().extr = 1
    ctx = StrictContext()
    ctx.extra = 2
    assert ctx.extra == 2


@dataclass
class DIEngineStyleContext(Context):
    """A DI-engine-style subclass: own __post_init__ without super, custom names kept."""
    counter: int = 0

    def __post_init__(self):
        self.keep('counter', 'note')


def test_di_engine_style_subclass_keeps_a_custom_name():
    ctx = DIEngineStyleContext()
    ctx.note, ctx.counter = 'hello', 3
    new = ctx.renew()
    assert (new.note, new.counter, new.total_step) == ('hello', 3, 1)


@pytest.mark.parametrize('async_mode', [False, True])
def test_custom_names_through_the_task(fresh_task, async_mode):
    """A kept custom counter adds up over the run, a per-step custom name never leaks into the next step."""
    from ding.framework import task
    seen = []

    def producer(ctx):
        if not ctx.has_attr('n_batches'):
            ctx.keep('n_batches')
            ctx.n_batches = 0
        ctx.n_batches += 1
        assert not ctx.has_attr('scratch')
        ctx.scratch = ctx.total_step

    def consumer(ctx):
        seen.append((ctx.total_step, ctx.scratch))

    with task.start(async_mode=async_mode, ctx=OnlineRLContext()):
        task.use(producer).use(consumer)
        task.run(20)
    assert seen == [(i, i) for i in range(20)]
    assert task.ctx.n_batches == 20
