import pytest
import torch

from ding.rl_utils import bootstrap_q, q_1step_td_error, q_nstep_td_error

Q = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
NEXT_Q_TARGET = torch.tensor([[5.0, 1.0], [2.0, 6.0]])
ACTION = torch.tensor([1, 0])


def test_bootstrap_q_max_and_double():
    assert bootstrap_q(NEXT_Q_TARGET).tolist() == [5.0, 6.0]
    online = torch.tensor([[0.0, 1.0], [1.0, 0.0]])  # picks actions 1 and 0
    assert bootstrap_q(NEXT_Q_TARGET, online).tolist() == [1.0, 2.0]


def test_1step_td_error_by_hand():
    reward = torch.tensor([1.0, 2.0])
    done = torch.tensor([0.0, 1.0])
    out = q_1step_td_error(Q, NEXT_Q_TARGET, ACTION, reward, done, gamma=0.9)
    # targets: 1 + 0.9 * 5 = 5.5; 2 (terminated); Q(s, a) = [2, 3]
    assert out.target.tolist() == pytest.approx([5.5, 2.0])
    assert out.q_sa.tolist() == [2.0, 3.0]
    assert out.td_error_abs.tolist() == pytest.approx([3.5, 1.0])
    assert out.loss.item() == pytest.approx((3.5**2 + 1.0) / 2)


def test_double_dqn_target_by_hand():
    online = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    out = q_1step_td_error(Q, NEXT_Q_TARGET, ACTION, torch.tensor([1.0, 2.0]), torch.tensor([0.0, 0.0]),
                           gamma=0.9, next_q_online=online)
    assert out.target.tolist() == pytest.approx([1 + 0.9 * 1.0, 2 + 0.9 * 2.0])


def test_nstep_td_error_by_hand():
    reward = torch.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    nstep = torch.tensor([3, 2])  # the second window ended after 2 real steps
    out = q_nstep_td_error(Q, NEXT_Q_TARGET, ACTION, reward, torch.tensor([0.0, 0.0]), gamma=0.5, nstep=nstep)
    # 1 + .5 + .25 + .5^3 * 5 = 2.375;  1 + .5 + .5^2 * 6 = 3.0
    assert out.target.tolist() == pytest.approx([2.375, 3.0])
    assert out.loss.item() == pytest.approx(((2 - 2.375)**2 + (3 - 3.0)**2) / 2)


def test_nstep_defaults_to_full_window():
    reward = torch.tensor([[1.0, 2.0]])
    out = q_nstep_td_error(Q[:1], NEXT_Q_TARGET[:1], ACTION[:1], reward, torch.tensor([0.0]), gamma=0.5)
    assert out.target.tolist() == pytest.approx([1 + 0.5 * 2 + 0.25 * 5])


def test_terminated_stops_bootstrap_truncated_does_not():
    # Same transition twice: row 0 terminated, row 1 truncated by a time limit (done=False).
    q = torch.tensor([[0.0, 0.0], [0.0, 0.0]])
    next_q = torch.tensor([[10.0, 4.0], [10.0, 4.0]])
    reward = torch.tensor([[1.0, 1.0], [1.0, 1.0]])
    done = torch.tensor([True, False])
    out = q_nstep_td_error(q, next_q, torch.tensor([0, 0]), reward, done, gamma=0.9, nstep=torch.tensor([2, 2]))
    assert out.target.tolist() == pytest.approx([1.9, 1.9 + 0.81 * 10])


def test_importance_weights_scale_each_sample():
    reward = torch.tensor([1.0, 2.0])
    done = torch.tensor([0.0, 1.0])
    out = q_1step_td_error(Q, NEXT_Q_TARGET, ACTION, reward, done, gamma=0.9, weight=torch.tensor([2.0, 0.0]))
    assert out.loss.item() == pytest.approx(2 * 3.5**2 / 2)
    assert out.td_error_abs.tolist() == pytest.approx([3.5, 1.0])  # priorities are unweighted


def test_gradient_flows_only_through_q():
    q = Q.clone().requires_grad_(True)
    next_q = NEXT_Q_TARGET.clone().requires_grad_(True)
    out = q_1step_td_error(q, next_q, ACTION, torch.tensor([1.0, 2.0]), torch.tensor([0.0, 1.0]), gamma=0.9)
    out.loss.backward()
    assert next_q.grad is None
    # d/dq mean((q_sa - y)^2) = (q_sa - y) on the chosen action only
    assert q.grad.flatten().tolist() == pytest.approx([0.0, -3.5, 1.0, 0.0])


def test_1step_rejects_nstep_reward():
    with pytest.raises(ValueError, match='reward \\[B\\]'):
        q_1step_td_error(Q, NEXT_Q_TARGET, ACTION, torch.ones(2, 3), torch.zeros(2), gamma=0.9)


def test_huber_loss_is_half_square_near_zero_and_linear_beyond_one():
    # TD errors 0.5 and -3: Huber gives 0.5 * 0.25 and 3 - 0.5; the squared loss 0.25 and 9
    q = torch.tensor([[0.5, 0.0], [0.0, 0.0]])
    reward, done = torch.tensor([0.0, 3.0]), torch.tensor([1.0, 1.0])
    squared = q_1step_td_error(q, NEXT_Q_TARGET, torch.tensor([0, 0]), reward, done, gamma=0.9)
    huber = q_nstep_td_error(q, NEXT_Q_TARGET, torch.tensor([0, 0]), reward, done, gamma=0.9, loss='huber')
    assert squared.loss.item() == pytest.approx((0.25 + 9) / 2)
    assert huber.loss.item() == pytest.approx((0.125 + 2.5) / 2)
    assert huber.td_error_abs.tolist() == squared.td_error_abs.tolist() == pytest.approx([0.5, 3.0])
    with pytest.raises(ValueError, match="loss must be one of .*'l1'"):
        q_nstep_td_error(q, NEXT_Q_TARGET, torch.tensor([0, 0]), reward, done, gamma=0.9, loss='l1')
