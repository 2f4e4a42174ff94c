"""Recurrent acting: each env's hidden state, kept by the policy between forwards.

`HiddenStateTable` holds one packed state row per env id (DRQN's [2, H] (h, c); any fixed
shape works); a forward reads the rows of the envs it acts for and writes their next states
back, and `reset(env_ids)` zeroes rows when those envs' episodes end (the collectors and the
evaluator call `policy.reset(ended_env_ids)`).

The acting modes of a recurrent policy pass the env ids of the `{env_id: obs}` form
on to `forward_batch(obs, env_id=...)`; the stacked form without ids means "all envs, in id
order". `collect_mode.state_dict()` carries the table, so a resumed run continues its
in-flight episodes with the states the actor had.
"""
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np
import torch

from ding.data.batch import Batch
from ding.policy.policy_modes import CollectMode, EvalMode, _split_by_env, stack_env_obs


class HiddenStateTable:
    """Rows of recurrent state by env id; rows start (and reset to) zero.

    `env_num=None` sizes the table on the first forward (its batch size) and grows it when a
    larger env id comes."""

    def __init__(self, env_num: Optional[int], zero_state: Callable[[int], torch.Tensor], owner: str) -> None:
        self._zero_state = zero_state
        self._owner = owner
        self._fixed = env_num is not None
        self._states = zero_state(int(env_num)) if env_num is not None else None

    def __len__(self) -> int:
        return 0 if self._states is None else len(self._states)

    def rows(self, env_id: Optional[Sequence[int]], batch_size: int) -> torch.Tensor:
        """Row indices for a forward over `batch_size` observations of envs `env_id`."""
        if env_id is None:
            if self._states is None:
                self._states = self._zero_state(batch_size)
            if batch_size != len(self):
                raise ValueError(f'{self._owner} keeps hidden states for {len(self)} envs but got a batch of '
                                 f'{batch_size} observations without env ids; pass forward_batch(obs, env_id=[...]) '
                                 f'or the {{env_id: obs}} form, or set env_num to the number of envs')
            return torch.arange(batch_size)
        ids = torch.as_tensor(np.asarray(env_id, dtype=np.int64).reshape(-1))
        if len(ids) != batch_size:
            raise ValueError(f'{self._owner}: {len(ids)} env ids for {batch_size} observations')
        if len(ids) and int(ids.min()) < 0:
            raise ValueError(f'{self._owner}: env ids must be >= 0, got {ids.tolist()}')
        needed = int(ids.max()) + 1 if len(ids) else 0
        if needed > len(self):
            if self._fixed:
                raise ValueError(f'{self._owner}: env id {needed - 1} is out of range for env_num={len(self)}')
            grown = self._zero_state(needed)
            if self._states is not None:
                grown[:len(self)] = self._states
            self._states = grown
        return ids

    def get(self, rows: torch.Tensor) -> torch.Tensor:
        return self._states[rows.to(self._states.device)].clone()

    def set(self, rows: torch.Tensor, state: torch.Tensor) -> None:
        self._states[rows.to(self._states.device)] = state.detach().to(self._states.device)

    def reset(self, env_ids: Optional[Sequence[int]] = None) -> None:
        if self._states is None:
            return
        if env_ids is None:
            self._states.zero_()
            return
        ids = [int(i) for i in env_ids]
        beyond = [i for i in ids if not 0 <= i < len(self)]
        if beyond:  # the forwards acted for fewer envs than report episode ends: rows were shared
            raise ValueError(f'{self._owner} keeps hidden states for {len(self)} envs, but env ids {beyond} ended '
                             f'an episode: the forwards did not see every env with its id (an env manager that '
                             f'acts on env groups without ids, such as the alternating sampler, is not supported)')
        self._states[ids] = 0

    def state_dict(self) -> Dict[str, Any]:
        return {'states': None if self._states is None else self._states.detach().cpu().clone()}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        states = state['states']
        if states is not None and self._states is not None and states.shape[1:] != self._states.shape[1:]:
            raise ValueError(f'{self._owner}: checkpoint hidden states have shape {list(states.shape[1:])} per env, '
                             f'this model has {list(self._states.shape[1:])}')
        device = self._states.device if self._states is not None else 'cpu'
        self._states = None if states is None else states.to(device).clone()


def _forward_with_env_ids(mode: Any, data: Any, **kwargs: Any) -> Any:
    """The `{env_id: obs}` form with the ids passed on, so each env keeps its own state."""
    if isinstance(data, Mapping) and not isinstance(data, Batch):
        env_ids = list(data.keys())
        return _split_by_env(env_ids, mode.forward_batch(stack_env_obs(data, env_ids), env_id=env_ids, **kwargs))
    return mode.forward_batch(data, **kwargs)


class RecurrentCollectMode(CollectMode):
    keeps_episode_state = True  # run-state checkpoints save its state_dict (ding/entry/pipeline.py)

    def forward(self, data: Any, **kwargs: Any) -> Any:
        return _forward_with_env_ids(self, data, **kwargs)

    def state_dict(self) -> Dict[str, Any]:
        return {'hidden_state': self._policy._collect_states.state_dict()}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        state = dict(state)
        hidden = state.pop('hidden_state', None)
        if hidden is not None:
            self._policy._collect_states.load_state_dict(hidden)
        super().load_state_dict(state)  # whatever else the plain collect mode loads


class RecurrentEvalMode(EvalMode):

    def forward(self, data: Any, **kwargs: Any) -> Any:
        return _forward_with_env_ids(self, data, **kwargs)


class RecurrentActing:
    """Mixin (before the policy class) for a policy whose acting keeps a hidden state per env
    (R2D2, recurrent QMIX): a `HiddenStateTable` for each of its collect and eval modes, the
    modes that pass env ids on, and the resets at episode ends. The model gives
    `zero_state(n, device)` and returns `next_state`."""

    @property
    def collect_mode(self) -> RecurrentCollectMode:
        return RecurrentCollectMode(self)

    @property
    def eval_mode(self) -> RecurrentEvalMode:
        return RecurrentEvalMode(self)

    def _init_collect(self) -> None:
        self._collect_states = HiddenStateTable(self._cfg.collect.env_num, self._zero_states,
                                                f'{type(self).__name__} collect')

    def _init_eval(self) -> None:
        self._eval_states = HiddenStateTable(self._cfg.eval.env_num, self._zero_states, f'{type(self).__name__} eval')

    def _zero_states(self, n: int) -> torch.Tensor:
        return self._model.zero_state(n, self._device)

    def _step_states(self, model: torch.nn.Module, states: HiddenStateTable, obs: Any, batch_size: int,
                     env_id: Optional[Sequence[int]], **model_kwargs: Any) -> Tuple[Dict[str, Any], torch.Tensor]:
        """One forward of `model` from the acting envs' states, which then hold its `next_state`;
        returns (the model's output, the states before it)."""
        rows = states.rows(env_id, batch_size)
        prev = states.get(rows)
        out = model({'obs': obs, 'prev_state': prev}, **model_kwargs)
        states.set(rows, out['next_state'])
        return out, prev

    def _reset_collect(self, env_ids: Optional[Sequence[int]] = None) -> None:
        self._collect_states.reset(env_ids)

    def _reset_eval(self, env_ids: Optional[Sequence[int]] = None) -> None:
        self._eval_states.reset(env_ids)
