"""A stand-alone EDAC (An et al. 2021) in plain torch, written from the paper's equations and
nothing of ours, to tell a fault in `EDACPolicy` from a property of the dataset: if this trains
where `edac.py` does not, the fault is ours.

    python benchmarks/learning/edac_reference.py --dataset halfcheetah-medium-v2.hdf5 --seconds 300 \
        [--init torch|paper] [--q-entropy 0|1] [--eta 1.0] [--critics 10] [--device cuda] --out ref.json

- critics: `--critics` MLPs (`--layers` hidden layers of 256), evaluated together by batched matmul;
  loss sum_k mean_b (Q_k(s, a) - y)^2 + eta * mean_b sum_{i != j} <g_i, g_j> / (N - 1), with
  g_k = grad_a Q_k(s, a) normalised;
- target y = r + gamma (1 - terminal) (min_k Q'_k(s', a') - [q-entropy] alpha log pi(a'|s')),
  a' ~ pi(s'); Polyak tau 0.005;
- actor: tanh-Gaussian, loss mean_b alpha log pi(a|s) - min_k Q_k(s, a); alpha learned as
  log alpha towards entropy -|A|;
- `--init paper`: hidden biases 0.1 and output layers uniform in +-3e-3 (critics) and +-1e-3
  (actor), as the EDAC paper's code; `torch`: nn.Linear's default;
- every `--eval-every` updates, the greedy policy tanh(mu) plays `--episodes` episodes.
The JSON has the evaluation curve, updates done and seconds per update.
"""
import argparse
import json
import math
import time

import gymnasium as gym
import h5py
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


class Ensemble(nn.Module):
    def __init__(self, n: int, dims: list, init: str, out_bound: float) -> None:
        super().__init__()
        self.w, self.b = nn.ParameterList(), nn.ParameterList()
        for i, (a, b) in enumerate(zip(dims[:-1], dims[1:])):
            bound = 1 / math.sqrt(a)
            w = torch.empty(n, a, b).uniform_(-bound, bound)
            bias = torch.empty(n, 1, b).uniform_(-bound, bound)
            if init == 'paper':
                if i == len(dims) - 2:
                    w.uniform_(-out_bound, out_bound)
                    bias.uniform_(-out_bound, out_bound)
                else:
                    bias.fill_(0.1)
            self.w.append(nn.Parameter(w))
            self.b.append(nn.Parameter(bias))

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x [n, B, in]
        for i, (w, b) in enumerate(zip(self.w, self.b)):
            x = torch.baddbmm(b, x, w)
            if i < len(self.w) - 1:
                x = F.relu(x)
        return x


def sample(mu: torch.Tensor, log_sigma: torch.Tensor, greedy: bool = False):
    log_sigma = log_sigma.clamp(-20, 2)
    eps = torch.zeros_like(mu) if greedy else torch.randn_like(mu)
    u = mu + log_sigma.exp() * eps
    logp = (-0.5 * eps ** 2 - log_sigma - 0.5 * math.log(2 * math.pi)).sum(-1)
    logp = logp - (2 * (math.log(2) - u - F.softplus(-2 * u))).sum(-1)
    return torch.tanh(u), logp


def diversity_penalty(q: torch.Tensor, a_k: torch.Tensor) -> torch.Tensor:
    """mean_b sum_{i != j} <g_i, g_j> / (N - 1) for q [N, B] computed from a_k [N, B, A]."""
    n = q.shape[0]
    g, = torch.autograd.grad(q.sum(), a_k, create_graph=True)
    g = (g / (g.norm(dim=-1, keepdim=True) + 1e-10)).transpose(0, 1)  # [B, N, A]
    cosines = torch.bmm(g, g.transpose(1, 2))  # [B, N, N]
    off_diagonal = 1.0 - torch.eye(n, device=q.device)
    return (cosines * off_diagonal).sum((1, 2)).mean() / (n - 1)


def main(argv=None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument('--dataset', required=True)
    p.add_argument('--env-id', default='HalfCheetah-v5')
    p.add_argument('--seconds', type=float, default=300)
    p.add_argument('--init', choices=('torch', 'paper'), default='torch')
    p.add_argument('--q-entropy', type=int, default=0)
    p.add_argument('--eta', type=float, default=1.0)
    p.add_argument('--critics', type=int, default=10)
    p.add_argument('--layers', type=int, default=4)
    p.add_argument('--eval-every', type=int, default=2500)
    p.add_argument('--episodes', type=int, default=5)
    p.add_argument('--device', default='cuda' if torch.cuda.is_available() else 'cpu')
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--out', required=True)
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    dev = torch.device(args.device)
    with h5py.File(args.dataset, 'r') as f:
        data = {k: torch.as_tensor(np.asarray(f[k], dtype=np.float32), device=dev)
                for k in ('observations', 'actions', 'rewards', 'next_observations', 'terminals')}
    size, obs_dim = data['observations'].shape
    act_dim = data['actions'].shape[1]
    n, hidden = args.critics, [256] * args.layers
    critic = Ensemble(n, [obs_dim + act_dim, *hidden, 1], args.init, 3e-3).to(dev)
    actor = Ensemble(1, [obs_dim, *hidden, 2 * act_dim], args.init, 1e-3).to(dev)
    target = Ensemble(n, [obs_dim + act_dim, *hidden, 1], args.init, 3e-3).to(dev)
    target.load_state_dict(critic.state_dict())
    log_alpha = torch.zeros((), device=dev, requires_grad=True)
    opt_q = torch.optim.Adam(critic.parameters(), 3e-4)
    opt_pi = torch.optim.Adam(actor.parameters(), 3e-4)
    opt_a = torch.optim.Adam([log_alpha], 3e-4)
    gamma, tau, batch = 0.99, 0.005, 256

    def q_of(net, s, a):  # s [B, obs], a [n, B, act] -> [n, B]
        return net(torch.cat([s.unsqueeze(0).expand(n, -1, -1), a], -1)).squeeze(-1)

    def policy(s, greedy=False):
        mu, log_sigma = actor(s.unsqueeze(0))[0].chunk(2, -1)
        return sample(mu, log_sigma, greedy)

    env = gym.make(args.env_id)
    curve, updates, start, learn_s = [], 0, time.time(), 0.0
    while not curve or time.time() - start < args.seconds:  # one evaluation at the least
        t0 = time.time()
        for _ in range(args.eval_every):
            idx = torch.randint(0, size, (batch,), device=dev)
            s, a, r, s2, d = (data[k][idx] for k in ('observations', 'actions', 'rewards', 'next_observations',
                                                     'terminals'))
            alpha = log_alpha.detach().exp()
            with torch.no_grad():
                a2, logp2 = policy(s2)
                v2 = q_of(target, s2, a2.unsqueeze(0).expand(n, -1, -1)).min(0).values
                if args.q_entropy:
                    v2 = v2 - alpha * logp2
                y = r + gamma * (1 - d) * v2
            a_k = a.unsqueeze(0).expand(n, -1, -1).clone().requires_grad_(True)
            q = q_of(critic, s, a_k)
            loss_q = (q - y).pow(2).mean(1).sum()
            if args.eta > 0:
                loss_q = loss_q + args.eta * diversity_penalty(q, a_k)
            opt_q.zero_grad(set_to_none=True)
            loss_q.backward()
            opt_q.step()
            new_a, logp = policy(s)
            q_new = q_of(critic, s, new_a.unsqueeze(0).expand(n, -1, -1)).min(0).values
            loss_pi = (alpha * logp - q_new).mean()
            opt_pi.zero_grad(set_to_none=True)
            loss_pi.backward()
            opt_pi.step()
            loss_a = (log_alpha * (-logp.detach() + act_dim)).mean()
            opt_a.zero_grad(set_to_none=True)
            loss_a.backward()
            opt_a.step()
            with torch.no_grad():
                torch._foreach_lerp_(list(target.parameters()), list(critic.parameters()), tau)
            updates += 1
        learn_s += time.time() - t0
        returns = []
        for ep in range(args.episodes):
            o, _ = env.reset(seed=1000 + ep)
            total, over = 0.0, False
            while not over:
                with torch.no_grad():
                    act = policy(torch.as_tensor(o, dtype=torch.float32, device=dev)[None], greedy=True)[0][0]
                o, rew, term, trunc, _ = env.step(act.cpu().numpy())
                total, over = total + rew, term or trunc
            returns.append(total)
        curve.append([updates, float(np.mean(returns)), float(q.detach().mean())])
        print(f'updates={updates} return={np.mean(returns):.0f} q={float(q.detach().mean()):.1f} '
              f'alpha={float(alpha):.3f} ms/update={1000 * learn_s / updates:.2f}', flush=True)
        with open(args.out, 'w') as f:
            json.dump({'args': vars(args), 'curve': curve, 'updates': updates,
                       'ms_per_update': 1000 * learn_s / updates}, f)


if __name__ == '__main__':
    main()
