"""SQILPolicy / SQILSACPolicy: the agent/expert halves of a batch, SQL's and SAC's update on them,
and the SQIL rule (expert rows rewarded 1, agent rows 0) turning into a preference for the
expert's action."""
import numpy as np
import pytest
import torch

from ding.config import compile_config
from ding.data.batch import Batch
from ding.policy import SQILPolicy, SQILSACPolicy, SQLPolicy
from ding.policy.sqil import agent_expert_td_error
from qac_helpers import params, random_batch, same

DQN_MODEL = dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[32, 32])
QAC_MODEL = dict(obs_shape=3, action_shape=1, actor_head_hidden_size=32, critic_head_hidden_size=32)


def test_halves_are_agent_rows_then_expert_rows():
    out = agent_expert_td_error(torch.tensor([1., 1., 3., 5.]))
    assert out == {'agent_td_error': 1.0, 'expert_td_error': 4.0}
    per_head = agent_expert_td_error(torch.tensor([[0., 2.], [2., 4.]]))  # e.g. [B, nstep]: mean per row
    assert per_head == {'agent_td_error': 1.0, 'expert_td_error': 3.0}
    with pytest.raises(ValueError, match='agent rows then as many expert rows, got 3 rows'):
        agent_expert_td_error(torch.ones(3))


def expert_action(obs: np.ndarray) -> np.ndarray:
    return (obs[:, 0] > 0).astype(np.int64)


def sqil_batch(n_half: int, seed: int = 0) -> Batch:
    """Agent rows (the wrong action, reward 0) then expert rows (`expert_action`, reward 1), from
    the same state distribution: what `sqil_data_pusher` and a half-and-half `OffPolicyLearner`
    hand the policy."""
    rng = np.random.default_rng(seed)
    obs = rng.normal(size=(2 * n_half, 4)).astype(np.float32)
    action = expert_action(obs)
    action[:n_half] = 1 - action[:n_half]
    return Batch(obs=obs, next_obs=obs + 0.01, action=action,
                 reward=np.repeat([0., 1.], n_half).astype(np.float32), done=np.zeros(2 * n_half, bool))


def test_sqil_update_is_sql_update_plus_the_halves():
    batch = sqil_batch(16)
    torch.manual_seed(0)
    sqil = SQILPolicy(dict(model=DQN_MODEL))
    torch.manual_seed(0)
    sql = SQLPolicy(dict(model=DQN_MODEL))
    out, ref = sqil.learn_mode.forward(batch), sql.learn_mode.forward(batch)
    assert out['total_loss'] == pytest.approx(ref['total_loss'])
    assert same(params(sqil._model.parameters()), params(sql._model.parameters()))
    assert set(sqil.learn_mode.monitor_vars()) <= set(out)
    # a fresh net's Q is near 0, so the expert half (reward 1) has the larger error
    assert out['expert_td_error'] > out['agent_td_error']
    with pytest.raises(ValueError, match='got 31 rows'):
        sqil.learn_mode.forward(sqil_batch(16)[:31])


def test_sqil_learns_to_prefer_the_expert_action():
    torch.manual_seed(0)
    policy = SQILPolicy(dict(model=DQN_MODEL, learn=dict(learning_rate=3e-3)))
    test_obs = sqil_batch(100, seed=1000).obs

    def agreement() -> float:
        return float((policy.eval_mode.forward_batch(test_obs)['action'] == expert_action(test_obs)).mean())

    before = agreement()
    for step in range(60):
        policy.learn_mode.forward(sqil_batch(32, seed=step))
    assert before < 0.7 and agreement() >= 0.9, (before, agreement())


def test_sqil_sac_update_reports_halves_and_rejects_odd_batch_before_updating():
    torch.manual_seed(0)
    policy = SQILSACPolicy(dict(model=QAC_MODEL))
    batch = random_batch(32)
    batch['reward'] = np.repeat([0., 1.], 16).astype(np.float32)
    out = policy.learn_mode.forward(batch)
    assert set(policy.learn_mode.monitor_vars()) <= set(out)
    assert out['expert_td_error'] > out['agent_td_error'] >= 0
    before = params(policy._model.parameters())
    with pytest.raises(ValueError, match='got 31 rows'):
        policy.learn_mode.forward(batch[:31])
    assert same(before, params(policy._model.parameters()))


def test_dizoo_configs_build_the_sqil_policies():
    from dizoo.classic_control.cartpole.config import cartpole_sqil_config as discrete
    from dizoo.classic_control.pendulum.config import pendulum_sqil_sac_config as continuous
    cfg = compile_config(continuous.main_config, create_cfg=continuous.create_config, auto=True, save_cfg=False)
    assert cfg.policy.type == 'sqil_sac' and cfg.policy.expert_random_collect_size == 1000
    assert cfg.policy.collect.model_path == 'pendulum_sac_seed0/ckpt/eval.pth.tar'
    # DI-engine trains discrete SQIL with its 'sql' type; 'sqil' is the same update plus the halves
    cfg = compile_config(discrete.main_config, create_cfg=discrete.create_config, auto=True, save_cfg=False)
    assert cfg.policy.type == 'sql' and cfg.policy.learn.alpha == 0.12
    assert SQILPolicy.default_config().learn.alpha == SQLPolicy.default_config().learn.alpha
