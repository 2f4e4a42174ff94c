"""A recurrent actor for env workers (env manager type 'worker_inference'): R2D2's eps-greedy
DRQN, carrying each of its worker's envs' LSTM state across steps and rollouts.

It extends the worker-actor protocol of `worker_actor.py` with three optional parts, which
`inference_worker.py` and `worker_inference.py` honour:
- the factory's `transition_columns` {name: (per-env shape, dtype)}: the actor returns
  `(actions, {name: [k, *shape]})` and the manager stores those columns in every
  transition (here `prev_state`, the state before the step, as `R2D2Policy` records it);
- `actor.reset(rows)`: the worker's local env rows whose episode just ended; their state is
  zeroed before they act again, as the collector does with `R2D2Policy._reset_collect`;
- `carried_state()` / `load_carried_state(s)`: the LSTM states go into the env manager's
  snapshot (env_manager/snapshot.py), so a resumed run continues its episodes exactly.
"""
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np
import torch

from ding.model.action_mask import split_action_mask
from ding.policy.worker_actor import EpsGreedyActor, float_tensors


class RecurrentEpsGreedyActor(EpsGreedyActor):
    """`EpsGreedyActor` on a DRQN: the rows of `obs` are the worker's envs, in a fixed order."""

    def __init__(self, model_fn: Callable[[], torch.nn.Module]) -> None:
        super().__init__(model_fn)
        self.state: Optional[torch.Tensor] = None  # [k, 2, H], made at the first call

    def reset(self, rows: Sequence[int]) -> None:
        if self.state is not None:
            self.state[np.asarray(rows, dtype=np.int64)] = 0

    def carried_state(self) -> Optional[np.ndarray]:
        """The envs' LSTM states, for an env manager snapshot (exact resume mid-episode)."""
        return None if self.state is None else self.state.numpy().copy()

    def load_carried_state(self, state: Optional[np.ndarray]) -> None:
        self.state = None if state is None else torch.from_numpy(np.array(state))

    def __call__(self, obs: Any, eps: Optional[float] = 0.0, warmup: bool = False,
                 **_: Any) -> Tuple[np.ndarray, Dict[str, np.ndarray]]:
        obs = float_tensors(obs)
        n = len(split_action_mask(obs)[0])  # a dict obs: the rows of its observation
        if self.state is None:
            self.state = self.model.zero_state(n)
        if n != len(self.state):
            raise ValueError(f'RecurrentEpsGreedyActor keeps the state of {len(self.state)} envs but was called '
                             f'with {n} observations')
        prev = self.state
        with torch.no_grad():
            out = self.model({'obs': obs, 'prev_state': prev}, inference=True)
        self.state = out['next_state']  # in the warm-up too: the state follows the episode
        return self.choose(out, eps, warmup), {'prev_state': prev.numpy().copy()}


class RecurrentActorFactory:
    """Picklable factory of `RecurrentEpsGreedyActor`s; declares the `prev_state` column."""

    def __init__(self, model_fn: Callable[[], torch.nn.Module], state_shape: Tuple[int, ...]) -> None:
        self.model_fn = model_fn
        self.transition_columns = {'prev_state': (tuple(state_shape), 'float32')}

    def __call__(self) -> RecurrentEpsGreedyActor:
        return RecurrentEpsGreedyActor(self.model_fn)
