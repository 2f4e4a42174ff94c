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

    def __call__(self, obs: Any, eps: Optional[float] = 0.0, warmup: bool = False, **_: Any) -> np.ndarray:
        with torch.no_grad():
            out = self.model(float_tensors(obs))
        return self.choose(out, eps, warmup)

    def choose(self, out: Mapping[str, Any], eps: Optional[float], warmup: bool) -> np.ndarray:
        """Actions from a model output: uniform in the warm-up, else greedy with probability 1 - eps
        (the model masked the logits of forbidden actions; a dict obs's mask is in `action_mask`)."""
        logit, mask = out[self.logit_key], out.get('action_mask')
        if warmup:
            return self._uniform(np.ones(len(logit), bool), logit.shape[-1], mask)
        action = logit.argmax(-1).numpy()
        if eps is not None and eps > 0:
            explore = self.rng.random(len(action)) < eps
            action[explore] = self._uniform(explore, logit.shape[-1], mask)
        return action

    def _uniform(self, rows: np.ndarray, n_action: int, mask: Optional[torch.Tensor]) -> np.ndarray:
        """An action for each selected row, uniform over the actions its row of `mask` allows (all
        of them without a mask)."""
        if mask is None:
            return self.rng.integers(0, n_action, int(rows.sum())).astype(np.int64)
        allowed = np.asarray(mask)[rows] != 0
        return np.array([self.rng.choice(np.flatnonzero(row)) for row in allowed], dtype=np.int64)


def float_tensors(obs: Any) -> Any:
    """A numpy obs batch as float32 tensors; a dict obs (an action mask beside the observation) key by key."""
    if hasattr(obs, 'items'):
        return {k: float_tensors(v) for k, v in obs.items()}
    return torch.from_numpy(np.asarray(obs, dtype=np.float32))


def actor_seed(seed: int) -> int:
    """A 63-bit seed for an actor's torch generator, from the seed its worker was given."""
    return int(np.random.SeedSequence([int(seed), _ACTOR_STREAM]).generate_state(1, np.uint64)[0] >> 1)


def model_copier(model: torch.nn.Module) -> Callable[[], torch.nn.Module]:
    """A picklable factory of CPU copies of `model` (the worker then loads published weights)."""
    snapshot = copy.deepcopy(model).cpu()
    return functools.partial(copy.deepcopy, snapshot)
