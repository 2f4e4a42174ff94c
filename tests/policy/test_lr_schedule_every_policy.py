"""`learn.lr_scheduler` reaches every registered policy: each of its optimizers' parameter groups
runs at its configured rate times the schedule's factor, and together they train every weight of
the policy's model (an optimizer kept where the shared helper cannot see it would fail here)."""
import pytest
import torch

from ding.torch_utils.lr_schedule import optimizers_of
from ding.utils.registry import POLICY_REGISTRY

DISCRETE = dict(obs_shape=4, action_shape=2)
CONTINUOUS = dict(obs_shape=3, action_shape=1)
MULTI_AGENT = dict(agent_obs_shape=5, global_obs_shape=4, action_shape=3)
# the smallest config each registered policy builds from
CASES = {
    'a2c': dict(model=DISCRETE), 'pg': dict(model=DISCRETE), 'ppo': dict(model=DISCRETE),
    'ppo_offpolicy': dict(model=DISCRETE), 'ppg_offpolicy': dict(model=DISCRETE), 'impala': dict(model=DISCRETE),
    'dqn': dict(model=DISCRETE), 'c51': dict(model=DISCRETE), 'qrdqn': dict(model=DISCRETE),
    'iqn': dict(model=DISCRETE), 'fqf': dict(model=DISCRETE), 'rainbow': dict(model=DISCRETE),
    'r2d2': dict(model=DISCRETE), 'sql': dict(model=DISCRETE), 'sqil': dict(model=DISCRETE),
    'discrete_sac': dict(model=DISCRETE), 'discrete_cql': dict(model=DISCRETE), 'bc': dict(model=DISCRETE),
    'ddpg': dict(model=CONTINUOUS), 'td3': dict(model=CONTINUOUS), 'sac': dict(model=CONTINUOUS),
    'sqil_sac': dict(model=CONTINUOUS), 'd4pg': dict(model=CONTINUOUS), 'cql': dict(model=CONTINUOUS),
    'td3_bc': dict(model=CONTINUOUS), 'iql': dict(model=CONTINUOUS), 'bcq': dict(model=CONTINUOUS),
    'edac': dict(model=CONTINUOUS),
    'pdqn': dict(model=dict(obs_shape=4, action_shape=dict(action_type_shape=3, action_args_shape=2),
                            encoder_hidden_size_list=[16])),
    'dt': dict(model=dict(state_dim=4, act_dim=2, n_blocks=1, h_dim=16, context_len=4, n_heads=1, drop_p=0.0)),
    'mappo': dict(multi_agent=True, model=dict(MULTI_AGENT, agent_num=2)), 'masac': dict(multi_agent=True, model=MULTI_AGENT),
    'qmix': dict(model=dict(agent_num=2, obs_shape=5, global_obs_shape=4, action_shape=3, hidden_size_list=[16])),
    'vdn': dict(model=dict(agent_num=2, obs_shape=5, global_obs_shape=4, action_shape=3, hidden_size_list=[16])),
}


def shipped_policies():
    import ding.policy  # noqa: F401  declares the lazily imported ones
    lazy = {name for name, module in POLICY_REGISTRY.lazy.items() if module.startswith('ding.')}
    loaded = {name for name, cls in POLICY_REGISTRY.items() if cls.__module__.startswith('ding.')}  # not tests' own
    return sorted(lazy | loaded)


def test_every_registered_policy_has_a_case():
    assert sorted(CASES) == shipped_policies()


@pytest.mark.parametrize('name', sorted(CASES))
def test_every_optimizer_group_follows_the_schedule(name):
    torch.manual_seed(0)
    cfg = dict(CASES[name], learn=dict(lr_scheduler=dict(type='step', decay_epoch=1, decay_rate=0.5)))
    policy = POLICY_REGISTRY.lookup(name)(cfg)
    optimizers = optimizers_of(policy)
    before = [[float(g['lr']) for g in opt.param_groups] for opt in optimizers]
    policy._after_update()
    policy._after_update()
    after = [[float(g['lr']) for g in opt.param_groups] for opt in optimizers]
    assert after == [[lr * 0.25 for lr in groups] for groups in before]
    trained = {id(p) for opt in optimizers for g in opt.param_groups for p in g['params']}
    untrained = [n for n, p in policy._model.named_parameters() if p.requires_grad and id(p) not in trained]
    assert untrained == []
