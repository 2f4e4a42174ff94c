"""`PettingZooParallelEnv`: a PettingZoo parallel env as one ding env with an agent dimension.

Every per-agent quantity is stacked on a leading agent axis `[A, ...]` (env managers add the
env axis, so a policy sees `[B, A, ...]`), in the env's `possible_agents` order. The observation
is a multi-agent dict:

    agent_state   float32 [A, obs_dim]          each agent's own observation
    global_state  float32 [state_dim]           the whole state (for a centralised critic), or
                  float32 [A, obs_dim + state_dim] with `agent_specific_global_state=True`
    action_mask   float32 [A, n_actions]        1 = allowed (continuous: all ones, [A, act_dim])

or, with `agent_obs_only=True`, just the `[A, obs_dim]` array. Actions are `[A]` ints
(MultiDiscrete) or `[A, act_dim]` floats (Box). The reward is the team's: the sum of the agents'
rewards, one float per step, so every env manager (shared-memory subprocess included) carries
it as for a single-agent env.

Death masking: an agent that PettingZoo removes from `env.agents` before the episode ends is
dead. Its rows of `agent_state` and of an agent-specific `global_state` become zeros (the
MAPPO paper's "death masking": a dead agent's critic input carries no stale state), its
`action_mask` allows only action 0, and its action is not sent to the env. With
`death_mask=False` its rows are left as the env gives them (the observation of the step it
ended on, zeros after that). The episode ends when no agent is left; it
counts as truncated when the env truncated the last agents (time limit).
"""
from typing import Any, Callable, Dict, List, Optional

import numpy as np
from gymnasium import spaces

from ding.envs.base_env import BaseEnv, BaseEnvTimestep

GlobalStateFn = Callable[[Any, np.ndarray], np.ndarray]  # (parallel env, agent_state [A, obs]) -> state


def env_state(env: Any, agent_state: np.ndarray) -> np.ndarray:
    """The default global state: the parallel env's own `state()` (PettingZoo API)."""
    return np.asarray(env.state(), dtype=np.float32).reshape(-1)


class PettingZooParallelEnv(BaseEnv):
    """`make_env()` builds the PettingZoo `ParallelEnv`; `global_state_fn` overrides `env.state()`."""
    config = dict(
        agent_obs_only=False,
        agent_specific_global_state=False,
        death_mask=True,
    )

    def __init__(self, cfg: Any, make_env: Callable[[], Any], global_state_fn: GlobalStateFn = env_state) -> None:
        super().__init__(cfg)
        self._make_env = make_env
        self._global_state_fn = global_state_fn
        self._env = None
        self._seed: Optional[int] = None
        self._dynamic_seed = True
        self._seeded_once = False
        self._build()

    # --- construction ---------------------------------------------------------------------
    def _build(self) -> None:
        self._env = self._make_env()
        env = self._env
        self._agents: List[str] = list(env.possible_agents)
        n = len(self._agents)
        act0, obs0 = env.action_space(self._agents[0]), env.observation_space(self._agents[0])
        for agent in self._agents[1:]:
            if env.action_space(agent) != act0 or env.observation_space(agent).shape != obs0.shape:
                raise ValueError(f'PettingZooParallelEnv stacks agents on one axis, so every agent needs the same '
                                 f'observation shape and action space; {agent} has {env.observation_space(agent)}, '
                                 f'{env.action_space(agent)} where {self._agents[0]} has {obs0}, {act0}')
        if isinstance(act0, spaces.Discrete):
            self._discrete, self._n_actions = True, int(act0.n)
            self._action_space = spaces.MultiDiscrete(np.full(n, act0.n, dtype=np.int64))
            mask_dim = self._n_actions
        elif isinstance(act0, spaces.Box):
            self._discrete, self._n_actions = False, None
            self._action_space = spaces.Box(np.stack([act0.low] * n), np.stack([act0.high] * n), dtype=act0.dtype)
            mask_dim = int(np.prod(act0.shape))
        else:
            raise ValueError(f'PettingZooParallelEnv supports Discrete or Box agent action spaces, got {act0}')
        self._obs_dim = int(np.prod(obs0.shape))
        # one reset to learn the global state's size (the env is reset again before use)
        obs, _ = env.reset(seed=0)
        agent_state = self._stack_obs(obs, np.ones(n, dtype=bool))
        state_dim = self._global_state_fn(env, agent_state).size
        box = lambda *shape: spaces.Box(-np.inf, np.inf, shape=shape, dtype=np.float32)  # noqa: E731
        if self._cfg.agent_obs_only:
            self._observation_space = box(n, self._obs_dim)
        else:
            specific = self._cfg.agent_specific_global_state
            self._observation_space = spaces.Dict({
                'agent_state': box(n, self._obs_dim),
                'global_state': box(n, self._obs_dim + state_dim) if specific else box(state_dim),
                'action_mask': spaces.Box(0.0, 1.0, shape=(n, mask_dim), dtype=np.float32),
            })
        self._mask_dim = mask_dim
        self._reward_space = spaces.Box(-np.inf, np.inf, shape=(1, ), dtype=np.float32)

    # --- BaseEnv --------------------------------------------------------------------------
    def seed(self, seed: int, dynamic_seed: bool = True) -> None:
        self._seed, self._dynamic_seed, self._seeded_once = int(seed), dynamic_seed, False

    def reset(self) -> Any:
        if self._env is None:
            self._build()
        seed = None
        if self._seed is not None and (not self._dynamic_seed or not self._seeded_once):
            seed, self._seeded_once = self._seed, True
        obs, _ = self._env.reset(seed=seed)
        self._alive = np.array([a in obs for a in self._agents], dtype=bool)
        self._episode_return = 0.0
        return self._observation(obs)

    def step(self, action: Any) -> BaseEnvTimestep:
        action = np.asarray(action)
        actions = {a: self._agent_action(action[i]) for i, a in enumerate(self._agents) if self._alive[i]}
        obs, rewards, terms, truncs, infos = self._env.step(actions)
        reward = self._team_reward(rewards)
        self._episode_return += reward
        still = set(self._env.agents)
        done = not still
        if not done:  # agents ending with the episode keep their last observation (it is bootstrapped from)
            self._alive &= np.array([a in still for a in self._agents], dtype=bool)
        info: Dict[str, Any] = {}
        if done:
            info['eval_episode_return'] = self._episode_return
            # ended by the time limit when every agent that acted last was truncated, not terminated
            acted = list(actions)
            info['truncated'] = bool(acted) and all(truncs.get(a, False) and not terms.get(a, False) for a in acted)
        return BaseEnvTimestep(self._observation(obs), np.array([reward], dtype=np.float32), done, info)

    def close(self) -> None:
        if self._env is not None:
            self._env.close()
        self._env = None

    def random_action(self) -> np.ndarray:
        """A uniformly random allowed action per agent (dead agents: 0)."""
        action = np.asarray(self._action_space.sample())
        if self._discrete:
            action[~self._alive] = 0
        return action

    @property
    def agents(self) -> List[str]:
        return list(self._agents)

    @property
    def agent_num(self) -> int:
        return len(self._agents)

    @property
    def observation_space(self) -> spaces.Space:
        return self._observation_space

    @property
    def action_space(self) -> spaces.Space:
        return self._action_space

    @property
    def reward_space(self) -> spaces.Space:
        return self._reward_space

    # --- helpers --------------------------------------------------------------------------
    def _team_reward(self, rewards: Dict[str, float]) -> float:
        """The team's reward for one step: the sum of the agents' rewards."""
        return float(sum(rewards.values()))

    def _agent_action(self, a: np.ndarray) -> Any:
        return int(a) if self._discrete else a.astype(np.float32)

    def _stack_obs(self, obs: Dict[str, Any], alive: np.ndarray) -> np.ndarray:
        out = np.zeros((len(self._agents), self._obs_dim), dtype=np.float32)
        for i, a in enumerate(self._agents):
            if alive[i] and a in obs:
                out[i] = np.asarray(obs[a], dtype=np.float32).reshape(-1)
        return out

    def _observation(self, obs: Dict[str, Any]) -> Any:
        alive = self._alive if self._cfg.death_mask else np.ones(len(self._agents), dtype=bool)
        agent_state = self._stack_obs(obs, alive)
        if self._cfg.agent_obs_only:
            return agent_state
        state = self._global_state_fn(self._env, agent_state).astype(np.float32, copy=False)
        if self._cfg.agent_specific_global_state:
            state = np.concatenate([agent_state, np.broadcast_to(state, (len(alive), state.size))], axis=1)
            state[~alive] = 0.0
        mask = np.ones((len(self._agents), self._mask_dim), dtype=np.float32)
        if self._discrete:
            mask[~self._alive] = 0.0
            mask[~self._alive, 0] = 1.0  # a dead agent may only take the no-op
        return {'agent_state': agent_state, 'global_state': state, 'action_mask': mask}
