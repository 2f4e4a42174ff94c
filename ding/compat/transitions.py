"""`DIEngineTransitions`: what `StepCollector` and `EpisodeCollector` record for a policy
written against DI-engine's protocol (ding/compat/policy.py): the policy's own
transitions, built per env per step by its `_process_transition`, as DI-engine's rolloutor
does. Made by the collect mode's `transition_recorder(env_num)`."""
from typing import Any, Dict, List, Mapping

import numpy as np
import torch

from ding.data.batch import Batch
from ding.envs.env_manager.step_batch import EnvTimestep
from ding.compat.policy_data import AttrDict, PolicyOutputs, as_tensor_tree, obs_by_env, row_of


class DIEngineTransitions:
    """DI-engine's `TransitionList`: per env, the policy's own transitions in time order.

    `record` has `TransitionColumns.record`'s signature, so `StepCollector` drives either.
    Each transition also gets DI-engine's `collect_train_iter` and `env_data_id` (an episode
    id: env i's first episode is i, later ones count on from env_num). A row whose episode an
    env restart dropped (`info['dropped_episode']`) is no transition, and the episode so far
    is left out of `take_episodes`.
    """

    def __init__(self, collect_mode: Any, env_num: int) -> None:
        self._mode, self.env_num = collect_mode, env_num
        self._episode_id = list(range(env_num))
        self._next_episode_id = env_num
        # tensors made once and shared by the transitions that carry them
        self._env_id_tensor = [torch.tensor(i) for i in range(env_num)]
        self._episode_tensor = [torch.tensor([i]) for i in range(env_num)]
        self._pending: List[list] = [[] for _ in range(env_num)]  # running episode of each env
        self.begin(0)

    def begin(self, train_iter: int) -> None:
        """Start a collect call: forget the rows handed out, note the learner's iteration."""
        self._rows: List[list] = [[] for _ in range(self.env_num)]
        self._finished: List[list] = []
        self._train_iter = torch.tensor([int(train_iter)])
        self.episodes = 0

    def record(self, t: int, row0: int, obs: Any, out: Mapping[str, Any], result: Any) -> np.ndarray:
        per_env = getattr(out, 'per_env', None)
        obs_t = out.obs if isinstance(out, PolicyOutputs) else obs_by_env(obs)
        ended = result.terminated | result.truncated
        next_obs = _env_rows(result.next_obs)
        reward = torch.from_numpy(np.ascontiguousarray(result.reward, dtype=np.float32)).view(-1, 1)
        done = torch.from_numpy(np.ascontiguousarray(ended))
        for k in range(len(ended)):
            env_id = row0 + k
            info = result.infos[k]
            if info and info.get('dropped_episode'):
                self._pending[env_id] = []
                continue
            output = per_env[k] if per_env is not None else as_tensor_tree({key: v[k] for key, v in out.items()})
            timestep = _timestep(result, k, next_obs[k], reward[k], done[k], self._env_id_tensor[env_id])
            transition = as_tensor_tree(self._mode.process_transition(obs_t[k], output, timestep))
            if isinstance(transition, dict):
                transition['collect_train_iter'] = self._train_iter
                transition['env_data_id'] = self._episode_tensor[env_id]
            self._rows[env_id].append(transition)
            self._pending[env_id].append(transition)
            if ended[k]:
                self._finished.append(self._pending[env_id])
                self._pending[env_id] = []
                self._episode_id[env_id] = self._next_episode_id
                self._episode_tensor[env_id] = torch.tensor([self._next_episode_id])
                self._next_episode_id += 1
                self.episodes += 1
        return np.flatnonzero(ended)

    def take_trajectories(self) -> tuple:
        """(env-major list of this call's transitions, index of each env's last row)."""
        trajectories = [t for rows in self._rows for t in rows]
        end_idx = np.cumsum([len(rows) for rows in self._rows]) - 1
        return trajectories, end_idx.tolist()

    def take_episodes(self) -> List[list]:
        """The episodes finished during this call, each a list of transitions."""
        return self._finished

    def state_dict(self) -> Dict[str, Any]:
        """Episode ids and each env's running episode: with the env snapshot, a resumed run
        records the same transitions (the collectors' `state_dict` carries this)."""
        return {'episode_id': list(self._episode_id), 'next_episode_id': self._next_episode_id,
                'pending': [list(rows) for rows in self._pending]}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        if len(state['episode_id']) != self.env_num:
            raise ValueError(f'transition recorder state is for {len(state["episode_id"])} envs, '
                             f'this collector has {self.env_num}')
        self._episode_id = list(state['episode_id'])
        self._episode_tensor = [torch.tensor([i]) for i in self._episode_id]
        self._next_episode_id = int(state['next_episode_id'])
        self._pending = [list(rows) for rows in state['pending']]


def _env_rows(obs: Any) -> Any:
    """Per-env tensors of a stacked observation, dtype kept (a dict observation: dicts)."""
    if isinstance(obs, Batch):
        cols = obs.to_torch()._cols
        return [row_of(cols, i) for i in range(len(obs))]
    return torch.as_tensor(obs)


def _timestep(result: Any, k: int, next_obs: Any, reward: torch.Tensor, done: torch.Tensor,
              env_id: torch.Tensor) -> EnvTimestep:
    """Row `k` of an `EnvStepBatch` as the tensor timestep DI-engine's rolloutor gives
    `_process_transition` (reward of shape [1]; `done` covers a time-limit end, as in DI-engine)."""
    info = AttrDict(result.infos[k] or {})
    info.setdefault('terminated', bool(result.terminated[k]))
    info.setdefault('truncated', bool(result.truncated[k]))
    return EnvTimestep(next_obs, reward, done, info, env_id=env_id)
