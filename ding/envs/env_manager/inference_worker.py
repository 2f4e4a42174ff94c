"""The env worker of the 'worker_inference' sampler: it also holds an actor and runs whole
rollouts on one command, writing the transitions into shared `[env_num, capacity]` arrays.

Commands added to `EnvWorker`'s (see `subprocess_worker.py`):
- `set_actor (actor_bytes, board_handle, rollout_handle or None, seed)`: build the actor
  from its pickled factory, seed it, tell it the env's action space (when it has
  `set_action_space`) and attach the weight board (and the rollout arrays);
- `attach_rollout rollout_handle`: larger rollout arrays (a longer rollout was asked for);
- `rollout (steps, kwargs)`: load newer weights if published, then `steps` steps of every
  env of this worker; answers the number of episodes that ended.
A recurrent actor (ding/policy/recurrent_worker_actor.py) also returns its extra transition
columns, and its `reset(rows)` is called for envs whose episode ended or that were reset.
"""
from typing import Any, Mapping, Optional, Tuple

import cloudpickle
import numpy as np

from ding.envs.env_manager.shared_arrays import SharedArrays
from ding.envs.env_manager.subprocess_worker import EnvWorker
from ding.envs.env_manager.weight_board import WeightBoard


class InferenceEnvWorker(EnvWorker):
    """Steps its envs with its own actor; needs the manager's eager auto-reset."""
    extra_commands = ('set_actor', 'attach_rollout', 'rollout')
    actor = board = roll = None

    def set_actor(self, payload: Tuple[bytes, tuple, Optional[tuple], int]) -> None:
        import torch
        torch.set_num_threads(1)  # one worker per core: intra-op threads would only contend
        actor_bytes, board_handle, roll_handle, seed = payload
        self.actor = cloudpickle.loads(actor_bytes)()
        if hasattr(self.actor, 'seed'):
            self.actor.seed(seed)
        if hasattr(self.actor, 'set_action_space'):  # e.g. a continuous warm-up: uniform within the Box
            self.actor.set_action_space(self.envs[0].action_space)
        if self.board is not None:
            self.board.close()
        self.board, self.seen = WeightBoard.attach(board_handle), -1
        if roll_handle is not None:
            self.attach_rollout(roll_handle)

    def reset(self, payload: Any) -> None:
        """The manager's reset of local envs also resets the actor's state for them."""
        super().reset(payload)
        if self.actor is not None and hasattr(self.actor, 'reset'):
            self.actor.reset([j for j, _ in payload])

    def attach_rollout(self, handle: tuple) -> None:
        if self.roll is not None:
            self.roll.close()
        self.roll = SharedArrays(*handle)

    def rollout(self, payload: Tuple[int, Mapping[str, Any]]) -> int:
        steps, kwargs = payload
        if self.actor is None or self.roll is None:
            raise RuntimeError('rollout before set_actor / attach_rollout')
        newer = self.board.read_if_newer(self.seen)
        if newer is not None:
            self.seen, state = newer
            self.actor.load_state_dict(state)
        lo, hi, r = self.lo, self.hi, self.roll.arrays
        self.active[lo:hi] = True
        episodes = 0
        recurrent = hasattr(self.actor, 'reset')
        for t in range(steps):
            obs = self.ready[lo:hi].copy()
            action = self.actor(obs, **kwargs)
            if isinstance(action, tuple):  # an actor that declared transition_columns (recurrent_worker_actor.py)
                action, extra = action
                for key, value in extra.items():
                    r[key][lo:hi, t] = value
            action = np.asarray(action)
            r['obs'][lo:hi, t] = obs
            r['action'][lo:hi, t] = action
            self.step(action.tolist() if self.action_kind == 'discrete' else action)
            r['reward'][lo:hi, t] = self.reward[lo:hi]
            r['next_obs'][lo:hi, t] = self.next_obs[lo:hi]
            r['terminated'][lo:hi, t] = self.terminated[lo:hi]
            r['truncated'][lo:hi, t] = self.truncated[lo:hi]
            going = ~(self.terminated[lo:hi] | self.truncated[lo:hi])
            episodes += int(going.size - going.sum())
            if recurrent and not going.all():  # a new episode starts from a fresh actor state
                self.actor.reset(np.flatnonzero(~going))
            self.ready[lo:hi][going] = self.next_obs[lo:hi][going]  # ended ones already hold their reset obs
        self.reset_flag[lo:hi] = 0
        return episodes

    def close(self, payload: Any = None) -> None:
        for shared in (self.board, self.roll):
            if shared is not None:
                shared.close()
        super().close(payload)
