"""Worker actors (env manager type 'worker_inference') of the actor-critic family: DDPG/TD3,
SAC and discrete SAC. The protocol is in `worker_actor.py`.

Each actor acts exactly as its policy's `_forward_collect` does, on a CPU copy of the
collect model, drawing its noise from its own `torch.Generator` (seeded per worker, so
workers explore differently and a run repeats). The draws are made the way the policy makes
them (`randn` / `multinomial` on the same shapes), so an actor and a policy whose generators
hold the same state give the same actions.

Warm-up (`warmup=True`) acts as `get_random_policy` does: uniform over the env's action
space. The worker tells a continuous actor that space through `set_action_space(space)`;
until then the bounds are [-1, 1], the range the tanh actors act in.
"""
from typing import Any, Callable, Mapping

import numpy as np
import torch

from ding.policy.worker_actor import actor_seed


class _SeededTorchActor:
    """A CPU model copy in eval mode plus the generator every random draw comes from."""

    def __init__(self, model_fn: Callable[[], torch.nn.Module]) -> None:
        self.model = model_fn()
        self.model.eval()
        self.generator = torch.Generator()
        self.generator.seed()  # unseeded until `seed()`: a fresh stream per actor

    def seed(self, seed: int) -> None:
        self.generator.manual_seed(actor_seed(seed))

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        self.model.load_state_dict(state_dict)

    @staticmethod
    def _tensor(obs: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.asarray(obs, dtype=np.float32))


class _BoxActor(_SeededTorchActor):
    """Continuous actions `[k, act_dim]` float32; warm-up uniform within the Box bounds."""

    def __init__(self, model_fn: Callable[[], torch.nn.Module]) -> None:
        super().__init__(model_fn)
        act_dim = int(self.model.action_dim)
        self.low, self.high = -torch.ones(act_dim), torch.ones(act_dim)

    def set_action_space(self, space: Any) -> None:
        """Warm-up bounds from the env's Box action space (it must be bounded and flat)."""
        low, high = np.asarray(space.low, np.float32), np.asarray(space.high, np.float32)
        if low.shape != tuple(self.low.shape):
            raise ValueError(f'{type(self).__name__}: the env action space {space} does not match the model\'s '
                             f'{tuple(self.low.shape)} actions')
        if not (np.isfinite(low).all() and np.isfinite(high).all()):
            raise ValueError(f'{type(self).__name__}: warm-up needs a bounded action space, got {space}')
        self.low, self.high = torch.from_numpy(low), torch.from_numpy(high)

    def _uniform(self, n: int) -> np.ndarray:
        u = torch.rand((n, len(self.low)), generator=self.generator)
        return (self.low + (self.high - self.low) * u).numpy()

    def __call__(self, obs: np.ndarray, warmup: bool = False, **_: Any) -> np.ndarray:
        if warmup:
            return self._uniform(len(obs))
        with torch.no_grad():
            return self._act(self._tensor(obs)).numpy()

    def _act(self, obs: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


class NoisyDeterministicActor(_BoxActor):
    """DDPG/TD3: clip(mu(s) + N(0, noise_sigma^2), -1, 1); noise_sigma <= 0 gives mu(s)."""

    def __init__(self, model_fn: Callable[[], torch.nn.Module], noise_sigma: float = 0.1) -> None:
        super().__init__(model_fn)
        self.noise_sigma = float(noise_sigma)

    def _act(self, obs: torch.Tensor) -> torch.Tensor:
        action = self.model.compute_actor(obs)['action']
        if self.noise_sigma > 0:
            noise = torch.randn(action.shape, generator=self.generator, dtype=action.dtype)
            action = (action + self.noise_sigma * noise).clamp(-1.0, 1.0)
        return action


class TanhGaussianActor(_BoxActor):
    """SAC: a = tanh(mu(s) + sigma(s) * eps), eps ~ N(0, 1)."""

    def _act(self, obs: torch.Tensor) -> torch.Tensor:
        mu, log_sigma = self.model.actor_mu_log_sigma(obs)
        eps = torch.randn(mu.shape, generator=self.generator, dtype=mu.dtype)
        return torch.tanh(mu + log_sigma.exp() * eps)


class CategoricalActor(_SeededTorchActor):
    """Discrete SAC: a ~ softmax(logit(s)); warm-up uniform over the actions; int64 `[k]`."""

    def __call__(self, obs: np.ndarray, warmup: bool = False, **_: Any) -> np.ndarray:
        with torch.no_grad():
            logit = self.model.compute_actor(self._tensor(obs))['logit']
            if warmup:
                return torch.randint(0, logit.shape[-1], (len(logit), ), generator=self.generator).numpy()
            return torch.multinomial(torch.softmax(logit, dim=-1), 1, generator=self.generator).squeeze(-1).numpy()
