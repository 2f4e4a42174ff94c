"""Actors that run inside env worker processes (env manager type 'worker_inference').

Why here and not in `ding/envs/`: an actor is a piece of a policy; the env manager only
receives a picklable factory of one (`collect_mode.worker_actor()`) and never imports
policies. The worker-actor protocol (docs/internals.md, "Worker-actor protocol"):

- `actor(obs [k, ...] numpy, warmup=False, **collect_kwargs) -> actions [k, ...]` numpy;
  `warmup=True` acts as the random warm-up policy does (uniform over the actions).
- `actor.load_state_dict(state_dict)`: the weights published by the collector.
- optional `actor.seed(seed)`: called once when the worker builds the actor.
- optional `actor.set_action_space(space)`: called once after that with the worker's env
  action space, for actors whose warm-up needs its bounds (continuous ones).

An actor is stateless across episodes: the policy's `_reset_collect` is not called in
this mode. DQN's actor is here; the actor-critic family's are in `qac_worker_actors.py`.
"""
import copy
import functools
from typing import Any, Callable, Mapping, Optional

import numpy as np
import torch

# Mixed into the seed, so an actor seeded like its env (`seed + i`) draws another stream.
_ACTOR_STREAM = 0xAC7


class EpsGreedyActor:
    """Greedy on `model(obs)[logit_key]`; with probability `eps` a uniform action instead
    (the greedy one included), as `DQNPolicy._forward_collect`. `eps` None or <= 0: greedy."""

    def __init__(self, model_fn: Callable[[], torch.nn.Module], logit_key: str = 'logit') -> None:
        self.model = model_fn()
        self.model.eval()
        self.logit_key = logit_key
        self.rng = np.random.default_rng()

    def seed(self, seed: int) -> None:
        self.rng = np.random.default_rng([int(seed), _ACTOR_STREAM])

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        self.model.load_state_dict(state_dict)

    def __call__(self, obs: np.ndarray, eps: Optional[float] = 0.0, warmup: bool = False, **_: Any) -> np.ndarray:
        with torch.no_grad():
            logit = self.model(torch.from_numpy(np.asarray(obs, dtype=np.float32)))[self.logit_key]
        n_action = logit.shape[-1]
        if warmup:
            return self.rng.integers(0, n_action, len(logit)).astype(np.int64)
        action = logit.argmax(-1).numpy()
        if eps is not None and eps > 0:
            explore = self.rng.random(len(action)) < eps
            action[explore] = self.rng.integers(0, n_action, int(explore.sum()))
        return action


def actor_seed(seed: int) -> int:
    """A 63-bit seed for an actor's torch generator, from the seed its worker was given."""
    return int(np.random.SeedSequence([int(seed), _ACTOR_STREAM]).generate_state(1, np.uint64)[0] >> 1)


def model_copier(model: torch.nn.Module) -> Callable[[], torch.nn.Module]:
    """A picklable factory of CPU copies of `model` (the worker then loads published weights)."""
    snapshot = copy.deepcopy(model).cpu()
    return functools.partial(copy.deepcopy, snapshot)
