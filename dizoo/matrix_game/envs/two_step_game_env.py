"""The two-step cooperative game of the QMIX paper (Rashid et al. 2018, section 6.1), registered
as `env.type='two_step_game'`.

Two agents, two actions each. Step 1 (state 1) pays 0, and agent 0's action picks the next
state: action 0 -> state 2A, action 1 -> state 2B. Step 2 pays the team, then the episode ends:

    state 2A: 7 whatever the agents do        state 2B:  agent 1 ->  0   1
                                                        agent 0 = 0 [ 0   1 ]
                                                        agent 0 = 1 [ 1   8 ]

The best return is 8 (go to 2B, both take action 1). A value decomposition that is linear in
the agents' values (VDN, or independent Q-learning) cannot represent 2B's payoffs well enough to
prefer it, and settles for 7; QMIX's monotonic mixing can, and finds 8.

Observation: DI-engine's multi-agent dict with `agent_state` [2, 5] (the state one-hot, then
the agent's id one-hot), `global_state` [3] (the state one-hot) and `action_mask` [2, 2] (all
allowed); actions `[2]` ints; the reward is the team's.
"""
from typing import Any, Dict

import numpy as np
from gymnasium import spaces

from ding.envs.base_env import BaseEnv, BaseEnvTimestep
from ding.utils.registry import ENV_REGISTRY

PAYOFF_2A = np.full((2, 2), 7.0, dtype=np.float32)
PAYOFF_2B = np.array([[0.0, 1.0], [1.0, 8.0]], dtype=np.float32)
N_AGENT, N_ACTION, N_STATE = 2, 2, 3


@ENV_REGISTRY.register('two_step_game')
class TwoStepGameEnv(BaseEnv):
    config = dict(stop_value=8.0)

    def __init__(self, cfg: Any = None) -> None:
        super().__init__(cfg)
        box = lambda *shape: spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32)  # noqa: E731
        self._observation_space = spaces.Dict({
            'agent_state': box(N_AGENT, N_STATE + N_AGENT),
            'global_state': box(N_STATE),
            'action_mask': box(N_AGENT, N_ACTION),
        })
        self._action_space = spaces.MultiDiscrete([N_ACTION] * N_AGENT)
        self._reward_space = spaces.Box(0.0, 8.0, shape=(1, ), dtype=np.float32)
        self._state = 0
        self._return = 0.0

    def seed(self, seed: int, dynamic_seed: bool = True) -> None:
        self._action_space.seed(int(seed))  # the game itself is deterministic

    def reset(self) -> Dict[str, np.ndarray]:
        self._state, self._return = 0, 0.0
        return self._observation()

    def step(self, action: Any) -> BaseEnvTimestep:
        a = np.asarray(action, dtype=np.int64).reshape(N_AGENT)
        if self._state == 0:
            self._state = 1 if a[0] == 0 else 2
            return BaseEnvTimestep(self._observation(), np.zeros(1, np.float32), False, {})
        reward = float((PAYOFF_2A if self._state == 1 else PAYOFF_2B)[a[0], a[1]])
        self._return += reward
        return BaseEnvTimestep(self._observation(), np.array([reward], np.float32), True,
                               {'eval_episode_return': self._return})

    def _observation(self) -> Dict[str, np.ndarray]:
        agent = np.zeros((N_AGENT, N_STATE + N_AGENT), dtype=np.float32)
        agent[:, self._state] = 1.0
        agent[np.arange(N_AGENT), N_STATE + np.arange(N_AGENT)] = 1.0
        state = np.zeros(N_STATE, dtype=np.float32)
        state[self._state] = 1.0
        return {'agent_state': agent, 'global_state': state, 'action_mask': np.ones((N_AGENT, N_ACTION), np.float32)}

    def close(self) -> None:
        pass

    def random_action(self) -> np.ndarray:
        return self._action_space.sample()

    @property
    def observation_space(self) -> spaces.Space:
        return self._observation_space

    @property
    def action_space(self) -> spaces.Space:
        return self._action_space

    @property
    def reward_space(self) -> spaces.Space:
        return self._reward_space

    def __repr__(self) -> str:
        return 'TwoStepGameEnv()'
