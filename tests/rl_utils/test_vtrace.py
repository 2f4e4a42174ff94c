"""V-trace against the paper's definition written as explicit sums (a plain loop per element),
the on-policy case against n-step returns, and DI-engine's `vtrace_error_*` forms."""
import pytest
import torch

from ding.rl_utils.vtrace import (vtrace, vtrace_data, vtrace_error_continuous_action, vtrace_error_discrete_action)


def reference(target_logp, behaviour_logp, reward, value, next_value, done, episode_end, gamma, lambda_, rho_bar,
              c_bar, rho_pg_bar):
    """vs_t = V(x_t) + sum_{s>=t} gamma^(s-t) (prod_{i<s} c_i) delta_s, the sum stopping at an episode end."""
    T, B = reward.shape
    vs = torch.zeros(T, B, dtype=torch.float64)
    adv = torch.zeros(T, B, dtype=torch.float64)
    for b in range(B):
        rho = [float(torch.exp(target_logp[t, b] - behaviour_logp[t, b])) for t in range(T)]
        g = [gamma * (1.0 - float(done[t, b])) for t in range(T)]
        delta = [min(rho_bar, rho[t]) * (float(reward[t, b]) + g[t] * float(next_value[t, b]) - float(value[t, b]))
                 for t in range(T)]
        for t in range(T):
            total, coef = float(value[t, b]), 1.0
            for s in range(t, T):
                total += coef * delta[s]
                if episode_end[s, b]:
                    break
                coef *= g[s] * lambda_ * min(c_bar, rho[s])
            vs[t, b] = total
        for t in range(T):
            boot = float(vs[t + 1, b]) if t + 1 < T and not episode_end[t, b] else float(next_value[t, b])
            adv[t, b] = min(rho_pg_bar, rho[t]) * (float(reward[t, b]) + g[t] * boot - float(value[t, b]))
    return vs, adv


def random_window(T=7, B=5, seed=0, with_ends=True):
    g = torch.Generator().manual_seed(seed)
    target_logp = -torch.rand(T, B, generator=g, dtype=torch.float64) * 2
    behaviour_logp = -torch.rand(T, B, generator=g, dtype=torch.float64) * 2
    reward = torch.randn(T, B, generator=g, dtype=torch.float64)
    value = torch.randn(T, B, generator=g, dtype=torch.float64)
    next_value = torch.cat([value[1:], torch.randn(1, B, generator=g, dtype=torch.float64)])
    done = torch.zeros(T, B, dtype=torch.bool)
    truncated = torch.zeros(T, B, dtype=torch.bool)
    if with_ends:
        done = torch.rand(T, B, generator=g) < 0.15
        truncated = (torch.rand(T, B, generator=g) < 0.15) & ~done
        # a truncated step bootstraps from its own final observation, not the next row's
        next_value = torch.where(truncated, torch.randn(T, B, generator=g, dtype=torch.float64), next_value)
    return target_logp, behaviour_logp, reward, value, next_value, done, done | truncated


@pytest.mark.parametrize('clips', [(1.0, 1.0, 1.0), (0.8, 1.2, 2.0), (10.0, 10.0, 10.0)])
@pytest.mark.parametrize('with_ends', [False, True])
def test_vtrace_matches_the_reference_loop(clips, with_ends):
    args = random_window(seed=len(clips) + int(with_ends), with_ends=with_ends)
    gamma, lambda_ = 0.97, 0.9
    out = vtrace(*args, gamma=gamma, lambda_=lambda_, rho_clip_ratio=clips[0], c_clip_ratio=clips[1],
                 rho_pg_clip_ratio=clips[2])
    vs, adv = reference(*args, gamma, lambda_, *clips)
    assert torch.allclose(out.vs, vs, atol=1e-6, rtol=0)
    assert torch.allclose(out.pg_adv, adv, atol=1e-6, rtol=0)
    assert torch.allclose(out.rho, torch.exp(args[0] - args[1]))


def test_on_policy_vtrace_is_the_nstep_return():
    target_logp, _, reward, value, next_value, _, _ = random_window(T=6, B=3, seed=3, with_ends=False)
    gamma = 0.9
    out = vtrace(target_logp, target_logp, reward, value, next_value, gamma=gamma, lambda_=1.0)
    T = reward.shape[0]
    for t in range(T):
        nstep = sum(gamma ** (k - t) * reward[k] for k in range(t, T)) + gamma ** (T - t) * next_value[-1]
        assert torch.allclose(out.vs[t], nstep, atol=1e-6, rtol=0)
    # the advantage bootstraps from the next vs: r_t + gamma * vs_{t+1} - V(x_t)
    expected = reward + gamma * torch.cat([out.vs[1:], next_value[-1:]]) - value
    assert torch.allclose(out.pg_adv, expected, atol=1e-6, rtol=0)


def test_on_policy_vtrace_stops_at_a_terminal_step():
    T, B = 5, 1
    reward = torch.ones(T, B)
    value = torch.full((T, B), 7.0)
    done = torch.tensor([[0.], [1.], [0.], [0.], [0.]])
    logp = torch.zeros(T, B)
    out = vtrace(logp, logp, reward, value, value.clone(), done=done, gamma=0.5, lambda_=1.0)
    # rows 0-1 are one episode that ends; rows 2-4 another, bootstrapped at the end with V = 7
    assert torch.allclose(out.vs[:2, 0], torch.tensor([1.5, 1.0]))
    assert torch.allclose(out.vs[2:, 0], torch.tensor([1 + 0.5 + 0.25 + 0.125 * 7, 1 + 0.5 + 0.25 * 7, 1 + 0.5 * 7]))


def test_vtrace_error_discrete_action_gradients_and_values():
    T, B, N = 4, 8, 3
    torch.manual_seed(0)
    value = torch.randn(T + 1, B).requires_grad_(True)
    reward = torch.rand(T, B)
    target_output = torch.randn(T, B, N).requires_grad_(True)
    behaviour_output = torch.randn(T, B, N)
    action = torch.randint(0, N, size=(T, B))
    loss = vtrace_error_discrete_action(vtrace_data(target_output, behaviour_output, action, value, reward, None),
                                        gamma=0.95, lambda_=0.9, rho_clip_ratio=1.1)
    assert all(x.dim() == 0 and torch.isfinite(x) for x in loss)
    tlogp = torch.log_softmax(target_output, -1).gather(-1, action[..., None])[..., 0]
    blogp = torch.log_softmax(behaviour_output, -1).gather(-1, action[..., None])[..., 0]
    vs, adv = reference(tlogp.detach().double(), blogp.double(), reward.double(), value[:-1].detach().double(),
                        value[1:].detach().double(), torch.zeros(T, B), torch.zeros(T, B), 0.95, 0.9, 1.1, 1.0, 1.0)
    assert torch.allclose(loss.policy_loss, -(tlogp * adv.float()).mean(), atol=1e-6)
    assert torch.allclose(loss.value_loss, (value[:-1] - vs.float()).pow(2).mean(), atol=1e-6)
    (loss.policy_loss + loss.value_loss - loss.entropy_loss).backward()
    assert value.grad[:-1].abs().sum() > 0 and value.grad[-1].abs().sum() == 0  # the bootstrap is a constant
    assert target_output.grad.abs().sum() > 0


def test_vtrace_error_continuous_action_weights():
    T, B, N = 3, 4, 2
    torch.manual_seed(1)
    mk = lambda: {'mu': torch.randn(T, B, N), 'sigma': torch.rand(T, B, N) + 0.5}  # noqa: E731
    data = vtrace_data(mk(), mk(), torch.randn(T, B, N), torch.randn(T + 1, B), torch.rand(T, B), torch.zeros(T, B))
    loss = vtrace_error_continuous_action(data)
    assert all(float(x) == 0.0 for x in loss)  # weight 0 everywhere: nothing to learn
    loss = vtrace_error_continuous_action(data._replace(weight=None))
    assert all(torch.isfinite(x) for x in loss) and float(loss.value_loss) > 0
