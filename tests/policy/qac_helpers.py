"""Hand-made replay batches for the SAC/TD3/DDPG policy tests."""
import numpy as np

from ding.data.batch import Batch


def random_batch(n: int = 32, obs_dim: int = 3, act_dim: int = 1, seed: int = 0, discrete_actions: int = 0) -> Batch:
    rng = np.random.default_rng(seed)
    action = (rng.integers(0, discrete_actions, n) if discrete_actions
              else rng.uniform(-1, 1, (n, act_dim)).astype(np.float32))
    return Batch(obs=rng.normal(size=(n, obs_dim)).astype(np.float32), action=action,
                 reward=rng.normal(size=n).astype(np.float32),
                 next_obs=rng.normal(size=(n, obs_dim)).astype(np.float32), done=rng.random(n) < 0.2)


def bandit_batch(n: int, seed: int) -> Batch:
    """One-step episodes with a constant observation; reward -(a - 0.5)^2, best action 0.5."""
    rng = np.random.default_rng(seed)
    action = rng.uniform(-1, 1, (n, 1)).astype(np.float32)
    return Batch(obs=np.ones((n, 2), np.float32), action=action, reward=-(action[:, 0] - 0.5) ** 2,
                 next_obs=np.ones((n, 2), np.float32), done=np.ones(n, bool))


def params(module):
    return [p.detach().clone() for p in module]


def same(a, b) -> bool:
    return all(x.equal(y) for x, y in zip(a, b))
