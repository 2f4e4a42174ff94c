"""rlpyt's "parallel-CPU" sampler: each worker holds a copy of the policy and runs whole
rollouts itself; only the transitions come back, through shared memory.

Why: when the policy is small and CPU-bound, batching it in the main process saves little,
while one round trip per step per worker costs ~50 us. Here a worker steps its envs and
acts on them for `rollout_len` steps with no IPC at all; the main process only publishes
weights (`WeightBoard`) and reads `[env_num, rollout_len]` arrays.

Interface kept minimal: `actor_fn` is a picklable factory (cloudpickle: lambdas are fine)
of an object with `__call__(obs [k, ...], **kwargs) -> actions [k, ...]` (numpy) and
`load_state_dict(state_dict)`; `EpsGreedyActor(model_fn)` covers Q-networks. Worker faults
raise (no restart) in this mode.
"""
import weakref
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import cloudpickle
import numpy as np

from ding.data.batch import Batch
from ding.envs.env_manager.shared_arrays import SharedArrays
from ding.envs.env_manager.subprocess_env_manager import SubprocessEnvManagerV2
from ding.envs.env_manager.subprocess_worker import EnvWorker
from ding.envs.env_manager.weight_board import WeightBoard


class EpsGreedyActor:
    """Greedy on `model(obs)[logit_key]`, uniform with probability `eps` (a collect kwarg)."""

    def __init__(self, model_fn: Callable[[], Any], logit_key: str = 'logit') -> None:
        self.model = model_fn()
        self.model.eval()
        self.logit_key = logit_key
        self.rng = np.random.default_rng()

    def seed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        self.model.load_state_dict(state_dict)

    def __call__(self, obs: np.ndarray, eps: float = 0.0) -> np.ndarray:
        import torch
        with torch.no_grad():
            logit = self.model(torch.from_numpy(obs))[self.logit_key]
        action = logit.argmax(-1).numpy()
        if eps > 0:
            explore = self.rng.random(len(action)) < eps
            action[explore] = self.rng.integers(0, logit.shape[-1], int(explore.sum()))
        return action


class InferenceEnvWorker(EnvWorker):
    """An env worker that also acts: `rollout` runs `rollout_len` steps with its own actor."""
    extra_commands = ('set_actor', 'rollout')

    def set_actor(self, payload: tuple) -> None:
        import torch
        torch.set_num_threads(1)
        actor_bytes, board_handle, roll_handle, seed = payload
        self.actor = cloudpickle.loads(actor_bytes)()
        if hasattr(self.actor, 'seed'):
            self.actor.seed(seed)
        self.board, self.seen = WeightBoard.attach(board_handle), -1
        self.roll = SharedArrays(*roll_handle)
        self.episode_return = np.zeros(self.hi - self.lo)

    def rollout(self, kwargs: Mapping[str, Any]) -> Dict[str, Any]:
        newer = self.board.read_if_newer(self.seen)
        if newer is not None:
            self.seen, state = newer
            self.actor.load_state_dict(state)
        lo, hi, r = self.lo, self.hi, self.roll.arrays
        self.active[lo:hi] = True
        returns: List[float] = []
        for t in range(r['reward'].shape[1]):
            obs = self.ready[lo:hi].copy()
            action = np.asarray(self.actor(obs, **kwargs))
            r['obs'][lo:hi, t] = obs
            r['action'][lo:hi, t] = action
            self.step(action.tolist() if self.action_kind == 'discrete' else action)
            ended = self.terminated[lo:hi] | self.truncated[lo:hi]
            for key, src in (('reward', self.reward), ('next_obs', self.next_obs), ('terminated', self.terminated),
                             ('truncated', self.truncated)):
                r[key][lo:hi, t] = src[lo:hi]
            self.episode_return += self.reward[lo:hi]
            going = ~ended
            self.ready[lo:hi][going] = self.next_obs[lo:hi][going]  # ended ones hold their reset obs
            for j in np.flatnonzero(ended):
                returns.append(float(self.episode_return[j]))
                self.episode_return[j] = 0.0
        self.reset_flag[lo:hi] = 0
        return dict(returns=returns, weights_version=self.seen)


class WorkerInferenceSampler(SubprocessEnvManagerV2):
    """`WorkerInferenceSampler(env_fn, actor_fn, state_dict, cfg)`; `publish(state_dict)`
    after each update; `collect(**kwargs)` -> (Batch of `env_num * rollout_len` env-major
    rows, returns of the episodes that ended). Episode bookkeeping lives in the workers
    here, so drive it with `collect` only, not mixed with `step_batch`."""
    config = dict(type='worker_inference', rollout_len=16)
    worker_cls = InferenceEnvWorker

    def __init__(self, env_fn: Sequence[Callable[[], Any]], actor_fn: Callable[[], Any],
                 state_dict: Mapping[str, Any], cfg: Optional[Mapping] = None) -> None:
        self._actor_bytes = cloudpickle.dumps(actor_fn)
        self._board = WeightBoard(state_dict)
        weakref.finalize(self, self._board.close)
        self._roll: Optional[SharedArrays] = None
        super().__init__(env_fn, cfg)

    def publish(self, state_dict: Mapping[str, Any]) -> int:
        """New weights for the workers, picked up at their next rollout; returns the version."""
        return self._board.publish(state_dict)

    def _attach(self, handles: Sequence[Any]) -> None:
        super()._attach(handles)
        if self._roll is None:
            self._roll = SharedArrays(self._rollout_spec())
            weakref.finalize(self, self._roll.close)
        requests = {h: ('set_actor', (self._actor_bytes, self._board.handle, self._roll.handle, h.env_ids[0]))
                    for h in handles}
        self._command(requests, self._cfg.reset_timeout, restart=False)

    def _rollout_spec(self) -> Dict[str, tuple]:
        n, steps = self._env_num, int(self._cfg.rollout_len)
        obs_shape, _ = self._shm.spec['next_obs']
        act_shape, act_dtype = self._shm.spec['action']
        if act_shape[:1] != (n, ):
            raise ValueError('WorkerInferenceSampler needs an array action space (Discrete, Box, MultiDiscrete)')
        step = (n, steps)
        return dict(obs=(step + obs_shape[1:], 'float32'), next_obs=(step + obs_shape[1:], 'float32'),
                    action=(step + act_shape[1:], act_dtype), reward=(step, 'float32'), terminated=(step, 'bool'),
                    truncated=(step, 'bool'))

    def collect(self, **kwargs: Any) -> Tuple[Batch, List[float]]:
        if self._closed:
            self.launch()
        timeout = None if self._cfg.step_timeout is None else self._cfg.step_timeout * int(self._cfg.rollout_len)
        results = self._command({h: ('rollout', kwargs) for h in self._handles}, timeout, restart=False)
        r = self._roll.arrays
        n, steps = self._env_num, int(self._cfg.rollout_len)
        cols = {k: v.reshape((n * steps, ) + v.shape[2:]).copy() for k, v in r.items()}
        cols['done'] = cols.pop('terminated')
        cols['env_id'] = np.repeat(np.arange(n, dtype=np.int64), steps)
        self._obs = self._ready_shm.copy()  # `ready_obs` stays the obs the next rollout starts from
        returns = [ret for h in self._handles for ret in results[h]['returns']]
        return Batch(cols), returns

    def close(self) -> None:
        super().close()
        if self._roll is not None:
            self._roll.close()
            self._roll = None
