"""PDQN: the model's two networks, the loss in ding/rl_utils/pdqn.py, the policy's update schedule
and acting, and the Moving-v0 stand-in for gym-hybrid."""
import gymnasium
import numpy as np
import pytest
import torch

from ding.data.batch import Batch
from ding.model import PDQN
from ding.policy import PDQNPolicy
from ding.rl_utils.pdqn import pdqn_error
from ding.utils.registry import MODEL_REGISTRY, POLICY_REGISTRY

ACTION_SHAPE = dict(action_type_shape=3, action_args_shape=2)


def make_policy(**overrides) -> PDQNPolicy:
    torch.manual_seed(0)
    model = dict(obs_shape=10, action_shape=ACTION_SHAPE, encoder_hidden_size_list=[16, 16])
    return PDQNPolicy(dict(model=model, **overrides))


def make_batch(n=8, seed=0) -> Batch:
    rng = np.random.default_rng(seed)
    return Batch(
        obs=rng.standard_normal((n, 10)).astype(np.float32),
        next_obs=rng.standard_normal((n, 10)).astype(np.float32),
        action=dict(action_type=rng.integers(0, 3, n), action_args=rng.uniform(-1, 1, (n, 2)).astype(np.float32)),
        reward=rng.standard_normal(n).astype(np.float32),
        done=np.arange(n) % 3 == 0,
    )


def snapshot(module):
    return [p.detach().clone() for p in module.parameters()]


def moved(before, module):
    return any(not torch.equal(a, b) for a, b in zip(before, module.parameters()))


def test_registered_and_model_shapes():
    assert POLICY_REGISTRY.lookup('pdqn') is PDQNPolicy and MODEL_REGISTRY.lookup('pdqn') is PDQN
    model = PDQN(10, dict(action_type_shape=(3, ), action_args_shape=(2, )), encoder_hidden_size_list=[16, 16])
    obs = torch.randn(5, 10)
    args = model(obs, mode='compute_continuous')['action_args']
    assert args.shape == (5, 2) and args.abs().max() <= 1  # tanh: the range envs scale from
    out = model({'state': obs, 'action_args': args}, mode='compute_discrete')
    assert out['logit'].shape == (5, 3) and out['action_args'] is args
    with pytest.raises(ValueError, match='action_type_shape'):
        PDQN(10, dict(action_args_shape=2))
    with pytest.raises(ValueError, match='mode'):
        model(obs, mode='compute_actor')


def test_multi_pass_hides_other_types_args():
    """MP-DQN: Q(s, k, .) sees only type k's args (action_mask row k)."""
    torch.manual_seed(0)
    mask = [[1, 0], [0, 1], [0, 0]]
    model = PDQN(4, ACTION_SHAPE, encoder_hidden_size_list=[8], multi_pass=True, action_mask=mask)
    obs, args = torch.randn(6, 4), torch.randn(6, 2)
    q = model.compute_discrete({'state': obs, 'action_args': args})['logit']
    changed = args.clone()
    changed[:, 1] += 1.0  # type 1's arg only
    q2 = model.compute_discrete({'state': obs, 'action_args': changed})['logit']
    assert q.shape == (6, 3)
    assert torch.allclose(q[:, [0, 2]], q2[:, [0, 2]]) and not torch.allclose(q[:, 1], q2[:, 1])
    with pytest.raises(ValueError, match='action_mask'):
        PDQN(4, ACTION_SHAPE, multi_pass=True, action_mask=[[1, 0]])


def test_loss_values():
    q_data = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.5, 1.0]], requires_grad=True)
    next_q_target = torch.tensor([[1.0, 4.0, 2.0], [3.0, 0.0, 1.0]])
    next_q_online = torch.tensor([[0.0, 0.0, 9.0], [0.0, 9.0, 0.0]])  # double DQN picks types 2 and 1
    reward, done = torch.tensor([1.0, -1.0]), torch.tensor([0.0, 1.0])
    q_pi = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    out = pdqn_error(q_data, q_pi, next_q_target, torch.tensor([0, 2]), reward, done, 0.5,
                     next_q_online=next_q_online)
    target = torch.tensor([1.0 + 0.5 * 2.0, -1.0])  # y = r + gamma (1 - done) Q_target(s', argmax online)
    assert torch.allclose(out.target, target)
    assert torch.allclose(out.q_loss, ((torch.tensor([1.0, 1.0]) - target) ** 2).mean())
    assert torch.allclose(out.args_loss, torch.tensor(-(6.0 + 15.0) / 2))
    out.args_loss.backward()
    assert torch.allclose(q_pi.grad, torch.full((2, 3), -0.5))  # every type's value is pushed up
    skipped = pdqn_error(None, q_pi, None, None, None, None, 0.5)
    assert skipped.q_loss.item() == 0 and skipped.td_error_abs is None


def test_learn_schedule_moves_only_its_half():
    """Update 1 trains both halves; then Q for the first half of each update_circle, x(s) for the rest,
    each with its own optimiser (the args loss must not move Q)."""
    policy = make_policy(learn=dict(update_circle=4))
    model, learn = policy._model, policy.learn_mode
    q_net = torch.nn.ModuleList([model.dis_encoder, model.dis_head])
    x_net = torch.nn.ModuleList([model.cont_encoder, model.cont_head])
    phases = []
    for i in range(6):
        q_before, x_before = snapshot(q_net), snapshot(x_net)
        out = learn.forward(make_batch(seed=i))
        phases.append((moved(q_before, q_net), moved(x_before, x_net)))
        assert np.isfinite(out['total_loss'])
    # train counts 1..6 with circle 4: both, then 2 -> x, 3 -> x, 4 -> Q, 5 -> Q, 6 -> x
    assert phases == [(True, True), (False, True), (False, True), (True, False), (True, False), (False, True)]
    state = learn.state_dict()
    fresh = make_policy(learn=dict(update_circle=4))
    fresh.learn_mode.load_state_dict(state)
    assert fresh._train_cnt == 6 and not moved(snapshot(model), fresh._model)


def test_acting_outputs_hybrid_actions():
    policy = make_policy(collect=dict(noise_sigma=0.5))
    obs = {i: torch.randn(10) for i in range(4)}
    out = policy.collect_mode.forward(obs, eps=1.0)
    for i in range(4):
        action = out[i]['action']
        assert 0 <= int(action['action_type']) < 3 and np.abs(np.asarray(action['action_args'])).max() <= 1
    greedy = policy.eval_mode.forward_batch(torch.randn(5, 10))
    logit = greedy['logit']
    assert np.array_equal(np.asarray(greedy['action']['action_type']), np.asarray(logit).argmax(-1))
    with pytest.raises(ValueError, match='update_circle'):
        make_policy(learn=dict(update_circle=1))


def test_moving_env_rules():
    import dizoo.gym_hybrid  # noqa: F401  (registers Moving-v0)
    env = gymnasium.make('Moving-v0').unwrapped
    obs, _ = env.reset(seed=3)
    assert obs.shape == (10, ) and obs[2] == 0 and np.isclose(obs[7], np.linalg.norm(obs[:2] - obs[5:7]))
    env._pos, env._target, env._heading = np.array([0.0, 0.0]), np.array([0.0, 0.3]), 0.0
    assert np.allclose(env._obs()[8:], [0.0, 1.0], atol=1e-6)  # target 90 degrees to the left of the heading
    env._target = np.array([0.3, 0.0])
    total = 0.0
    _, r, term, _, _ = env.step({'action_type': 0, 'action_args': np.array([1.0, 0.0])})  # full throttle east
    total += r
    assert np.isclose(r, 0.05 - 0.001) and not term  # speed 0.5 * delta_t 0.1
    for _ in range(4):
        _, r, term, _, _ = env.step((1, np.array([0.0, 0.0])))  # turn by 0: keep going
        total += r
    _, r, term, _, _ = env.step((2, np.array([0.0, 0.0])))  # break to 0 inside the target
    assert term and np.isclose(total + r, 0.3 - 0.05 - 6 * 0.001 + 1.0)
    with pytest.raises(ValueError, match='action_args'):
        env.step((0, np.array([1.0])))
    env._pos, env._heading, env._speed = np.array([0.98, 0.0]), 0.0, 0.0  # walls: the edge stops the agent
    obs, r, term, trunc, _ = env.step((0, np.array([1.0, 0.0])))
    assert obs[0] == 1.0 and obs[2] == 0.0 and not (term or trunc)


def test_importance_weights_need_the_column():
    policy = make_policy(priority=True, priority_IS_weight=True)
    with pytest.raises(KeyError, match="no 'priority_IS' column"):
        policy.learn_mode.forward(make_batch())
