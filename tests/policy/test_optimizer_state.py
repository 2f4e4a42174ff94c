"""A checkpoint's optimizer state from another kind of optimizer is refused at load, with the cause;
one from the same kind (also without the flags newer torch versions add) loads and steps."""
import copy

import pytest
import torch

from ding.config import compile_config
from ding.policy import QMIXPolicy
from ding.torch_utils.optimizer_state import load_optimizer_state
from dizoo.matrix_game.config import two_step_game_qmix_config as qmix_config


def qmix_learner():
    cfg = compile_config(copy.deepcopy(qmix_config.main_config), create_cfg=copy.deepcopy(qmix_config.create_config),
                         seed=0, save_cfg=False)
    return QMIXPolicy(cfg.policy, enable_field=['learn'])


def stepped(optimizer):
    for group in optimizer.param_groups:
        for param in group['params']:
            param.grad = torch.ones_like(param)
    optimizer.step()
    return optimizer


def test_a_qmix_checkpoint_from_its_adam_days_is_refused_at_load():
    policy = qmix_learner()
    state = policy.learn_mode.state_dict()
    state['optimizer'] = stepped(torch.optim.Adam(policy._model.parameters())).state_dict()
    state['model'] = {name: value + 1 for name, value in state['model'].items()}
    with pytest.raises(ValueError, match=r"another kind of optimizer than this RMSprop.*'betas'.*'alpha'"):
        policy.learn_mode.load_state_dict(state)
    acting = QMIXPolicy(policy._cfg, enable_field=['eval'])  # its model loads as ever
    acting.eval_mode.load_state_dict(state)
    assert all(torch.equal(a, b) for a, b in zip(acting._model.state_dict().values(), state['model'].values()))


def test_the_same_kind_loads_and_steps_also_without_newer_torch_flags():
    policy = qmix_learner()
    source = stepped(torch.optim.RMSprop(policy._model.parameters(), lr=0.005, alpha=0.99, eps=1e-5))
    saved = source.state_dict()
    for group in saved['param_groups']:  # as an older torch wrote it
        for flag in ('foreach', 'differentiable', 'capturable', 'maximize'):
            group.pop(flag, None)
    target = policy._optimizer
    load_optimizer_state(target, saved)
    stepped(target)
    first = target.param_groups[0]['params'][0]
    assert torch.isfinite(target.state[first]['square_avg']).all()
    assert int(target.state[first]['step']) == 2


def test_something_else_than_an_optimizer_state_is_refused():
    with pytest.raises(ValueError, match='not an optimizer state'):
        load_optimizer_state(qmix_learner()._optimizer, {'state': {}}, 'dis_optimizer')
