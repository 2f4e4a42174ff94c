"""`NormalizedEnvManager`: observation and reward normalisation for a whole env manager, with
one set of running statistics in this (the main) process.

Why here rather than in each env: the statistics are then one object (`RunningMeanStd`,
float64) fed by every env's rows of the stacked batch, whatever the manager (serial or
subprocess, any `worker_num`), in env-id order, so they do not depend on how envs are spread
over workers. The evaluator's manager reads the very same object with updates off
(`frozen_for`), so evaluation always sees the collector's latest statistics and never moves
them. A checkpoint saves them in the manager's `state_dict()` (beside the envs' snapshot),
so `RunStateSaver` restores them bit for bit; `normalizer_state()` / `obs_module()` carry
them into an exported model. Even when the envs themselves cannot be snapshotted the
statistics are restored (the envs then start fresh episodes, as for any manager).

Rewards are divided by the running std of each env's discounted return (as the
`reward_norm` wrapper does); episode returns and `eval_episode_return` stay raw, so evaluation values and
logs are in the env's own units.
"""
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from ding.envs.env_manager.snapshot import EnvSnapshotError
from ding.envs.env_manager.timestep_adapter import TimestepAdapter
from ding.envs.env_wrappers.running_stats import RunningMeanStd

FORMAT = 'normalized'
# Protocols that step envs without `step_batch` (rollouts in workers, samplers): they would
# bypass the normalisation, so they are hidden and collectors take the batched path.
_HIDDEN = frozenset(('collect_steps', 'collect_rollout', 'bind_actor'))


class NormalizedEnvManager(TimestepAdapter):
    """`NormalizedEnvManager(env_manager, obs_norm=True, reward_norm=False, reward_discount=0.99,
    clip_range=(-10, 10), update=True, obs_stats=None, reward_stats=None)`.

    Everything not about normalisation is the wrapped manager's (launch, seed, reset, close,
    env_num, ...). `update=False` reads the statistics without changing them.
    """

    def __init__(self, env_manager: Any, obs_norm: bool = True, reward_norm: bool = False,
                 reward_discount: float = 0.99, clip_range: Optional[Sequence[float]] = (-10, 10), update: bool = True,
                 obs_stats: Optional[RunningMeanStd] = None, reward_stats: Optional[RunningMeanStd] = None) -> None:
        if not callable(getattr(env_manager, 'step_batch', None)) or not hasattr(env_manager, 'env_num'):
            raise TypeError(f'NormalizedEnvManager wraps an env manager (step_batch, ready_obs, ready_obs_id); '
                            f'got {type(env_manager).__name__}')
        self._env = env_manager
        self.update = bool(update)
        self.clip_range = None if clip_range is None else tuple(clip_range)
        self.reward_discount = float(reward_discount)
        self.obs_stats = obs_stats
        if obs_norm and obs_stats is None:
            shape = getattr(env_manager.observation_space, 'shape', None)
            if shape is None:
                raise TypeError(f'NormalizedEnvManager normalises array observations; '
                                f'{env_manager.observation_space} has no shape')
            self.obs_stats = RunningMeanStd(shape=tuple(shape))
        self.reward_stats = reward_stats if reward_stats is not None or not reward_norm else RunningMeanStd(shape=())
        self._returns = np.zeros(env_manager.env_num, dtype=np.float64)  # discounted, per env
        self._cache: tuple = (None, None, None)  # (raw ready_obs, stats version, normalised)
        self._version = 0
        self._evaluated: Optional[Dict[str, Any]] = None

    @property
    def steps_env_subsets(self) -> bool:
        return getattr(self._env, 'steps_env_subsets', False)

    def frozen_for(self, env_manager: Any) -> 'NormalizedEnvManager':
        """`env_manager` (the evaluator's) normalising observations with these statistics,
        read-only; its rewards stay raw."""
        return NormalizedEnvManager(env_manager, obs_norm=self.obs_stats is not None, reward_norm=False,
                                    clip_range=self.clip_range, update=False, obs_stats=self.obs_stats)

    # --- the normalised data path ----------------------------------------------------------
    def _normalize(self, obs: np.ndarray) -> np.ndarray:
        if self.obs_stats is None:
            return obs
        return self.obs_stats.normalize(obs, self.clip_range).astype(np.float32)

    @property
    def ready_obs(self) -> np.ndarray:
        raw = self._env.ready_obs
        # Managers never rewrite arrays they handed out; the statistics may have moved (a shared
        # object: the collector's updates reach an evaluator's manager too), hence their count.
        version = (self._version, None if self.obs_stats is None else self.obs_stats.count)
        cached_raw, cached_version, normalised = self._cache
        if cached_raw is raw and cached_version == version:
            return normalised
        normalised = self._normalize(raw)
        self._cache = (raw, version, normalised)
        return normalised

    def step_batch(self, actions: Any) -> Any:
        stepped = list(self._env.ready_obs_id)
        result = self._env.step_batch(actions)
        if self.update and stepped:
            if self.obs_stats is not None:
                self.obs_stats.update(result.next_obs[stepped])
            self._version += 1
        reward = result.reward
        if self.reward_stats is not None:
            self._returns[stepped] = self._returns[stepped] * self.reward_discount + reward[stepped]
            if self.update and stepped:
                self.reward_stats.update(self._returns[stepped])
            self._returns[result.terminated | result.truncated] = 0.0
            reward = (reward / self.reward_stats.std).astype(np.float32)
        return result._replace(next_obs=self._normalize(result.next_obs), reward=reward)

    def step(self, actions: Any) -> Any:
        timesteps = TimestepAdapter.step(self, actions)
        from ding.envs.env_manager.base_env_manager import BaseEnvManager
        if isinstance(self._env, BaseEnvManager):  # V1's step: {env_id: timestep}
            return {ts.env_id: ts for ts in timesteps}
        return timesteps

    def launch(self, reset_param: Any = None) -> None:
        self._returns[:] = 0.0
        self._env.launch(reset_param)
        self._note_evaluated()

    def reset(self, reset_param: Any = None) -> None:
        ids = range(self._env.env_num) if not reset_param else [int(i) for i in reset_param]
        self._returns[list(ids)] = 0.0
        self._env.reset(reset_param)
        self._note_evaluated()

    def _note_evaluated(self) -> None:
        """A read-only (evaluator) manager remembers the statistics its round starts with: the
        collector moves them on before the step's checkpoint is written."""
        if not self.update:
            self._evaluated = self._live_state()

    # --- checkpoint / export ---------------------------------------------------------------
    def normalizer_state(self) -> Dict[str, Any]:
        """The statistics (float64 arrays) and clip range: what an exported model needs. For a
        read-only manager, those its last evaluation (launch / reset) used."""
        return self._evaluated if self._evaluated is not None else self._live_state()

    def _live_state(self) -> Dict[str, Any]:
        return {'obs': None if self.obs_stats is None else self.obs_stats.state_dict(),
                'reward': None if self.reward_stats is None else self.reward_stats.state_dict(),
                'clip_range': self.clip_range, 'returns': self._returns.copy()}

    def load_normalizer_state(self, state: Dict[str, Any]) -> None:
        for name, stats in (('obs', self.obs_stats), ('reward', self.reward_stats)):
            if (state[name] is None) != (stats is None):
                raise ValueError(f'normalizer state has {name} statistics {"but" if stats is None else "and"} this '
                                 f'NormalizedEnvManager {"does not normalise" if stats is None else "has none"} {name}')
            if stats is not None:
                stats.load_state_dict(state[name])
        returns = np.array(state['returns'], dtype=np.float64)  # another manager's (a checkpoint file's): zeros
        self._returns = returns if returns.shape == self._returns.shape else np.zeros_like(self._returns)
        self._evaluated = None
        self._version += 1

    def obs_module(self) -> Any:
        """A torch module applying the current observation normalisation (for export)."""
        if self.obs_stats is None:
            raise ValueError('this NormalizedEnvManager does not normalise observations')
        return self.obs_stats.as_module(self.clip_range)

    def state_dict(self) -> Dict[str, Any]:
        """The wrapped manager's snapshot (or why there is none) and the statistics."""
        state = {'format': FORMAT, 'normalizer': self._live_state(), 'manager': None, 'manager_error': None}
        try:
            state['manager'] = self._env.state_dict()
        except (EnvSnapshotError, AttributeError) as err:
            state['manager_error'] = f'{type(self._env).__name__}: {err}'
        return state

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Statistics first, so they are restored even when the envs cannot be (then this
        raises `EnvSnapshotError`, and the run-state loader starts fresh episodes)."""
        if not isinstance(state, dict) or state.get('format') != FORMAT:
            raise EnvSnapshotError(f'NormalizedEnvManager cannot load a snapshot of kind '
                                   f'{state.get("format") if isinstance(state, dict) else type(state).__name__!r}')
        self.load_normalizer_state(state['normalizer'])
        if state['manager'] is None:
            self._returns[:] = 0.0
            raise EnvSnapshotError(state['manager_error'] or 'the env manager was not captured')
        self._env.load_state_dict(state['manager'])

    # --- everything else is the wrapped manager's ------------------------------------------
    @property
    def env_manager(self) -> Any:
        return self._env

    def __getattr__(self, name: str) -> Any:
        if name.startswith('__') or name == '_env' or name in _HIDDEN:
            raise AttributeError(name)
        return getattr(self._env, name)

    def __setattr__(self, name: str, value: Any) -> None:
        # TimestepAdapter._step_only writes the wrapped manager's `_active` mask in place; other
        # private names a caller sets belong to the wrapped manager too.
        if name in ('_env', '_returns', '_cache', '_version', '_evaluated') or not name.startswith('_'):
            object.__setattr__(self, name, value)
        else:
            setattr(self._env, name, value)

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | set(dir(self._env)) - _HIDDEN)

    def __repr__(self) -> str:
        return f'NormalizedEnvManager({self._env!r}, obs_norm={self.obs_stats is not None}, ' \
               f'reward_norm={self.reward_stats is not None}, update={self.update})'
